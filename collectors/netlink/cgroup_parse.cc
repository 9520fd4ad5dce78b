#include "collectors/netlink/cgroup_parse.h"

#include <algorithm>
#include <array>
#include <vector>

namespace rnic::nl {
namespace {

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// A pod UID as the API server prints it: 8-4-4-4-12 lower-case hex.
bool IsPodUid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !IsHex(s[i])) return false;
  }
  return true;
}

// Container IDs of containerd, CRI-O and Docker: 64 hex digits.
bool IsContainerId(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), IsHex);
}

std::string_view StripSuffix(std::string_view s, std::string_view suffix) {
  if (s.ends_with(suffix)) s.remove_suffix(suffix.size());
  return s;
}

// "kubepods-burstable-pod<uid_>.slice", "kubepods-pod<uid_>.slice",
// "pod<uid>": the UID with its dashes, or "".
std::string PodUidOf(std::string_view seg) {
  seg = StripSuffix(seg, ".slice");
  std::size_t at;
  if (seg.starts_with("pod")) {
    at = 3;
  } else {
    const auto p = seg.rfind("-pod");
    if (p == std::string_view::npos) return {};
    at = p + 4;
  }
  std::string uid(seg.substr(at));
  std::replace(uid.begin(), uid.end(), '_', '-');  // systemd escapes '-'
  return IsPodUid(uid) ? uid : std::string();
}

// "cri-containerd-<id>.scope", "crio-<id>.scope", "docker-<id>.scope",
// "crio-<id>", "<id>": the ID, or "". CRI-O's conmon ("crio-conmon-<id>")
// is the monitor, not the container.
std::string ContainerIdOf(std::string_view seg) {
  seg = StripSuffix(seg, ".scope");
  for (std::string_view prefix :
       {"cri-containerd-", "crio-", "docker-", "containerd-", "libpod-"}) {
    if (seg.starts_with(prefix)) {
      seg.remove_prefix(prefix.size());
      break;
    }
  }
  return IsContainerId(seg) ? std::string(seg) : std::string();
}

// "job_1234" -> "1234"; "" for anything else.
std::string SlurmJobOf(std::string_view seg) {
  if (!seg.starts_with("job_") || seg.size() == 4) return {};
  seg.remove_prefix(4);
  for (char c : seg) {
    if (c < '0' || c > '9') return {};
  }
  return std::string(seg);
}

}  // namespace

ContainerRef ParseCgroupPath(std::string_view path) {
  std::vector<std::string_view> segs;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const std::string_view seg = path.substr(0, slash);
    if (!seg.empty()) segs.push_back(seg);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  ContainerRef ref;
  bool kubepods = false;
  bool slurm = false;
  for (std::string_view seg : segs) {
    if (seg.find("kubepods") != std::string_view::npos) kubepods = true;
    // Only below a kubepods cgroup is "pod<uid>" kubelet's pod.
    if (kubepods && ref.pod_uid.empty()) ref.pod_uid = PodUidOf(seg);
    // Only below slurmstepd's cgroup ("slurmstepd.scope", v1 "slurm") is
    // "job_<id>" a Slurm job.
    if (slurm && ref.slurm_job_id.empty()) ref.slurm_job_id = SlurmJobOf(seg);
    if (seg.find("slurm") != std::string_view::npos) slurm = true;
  }
  // The container is the deepest segment that names one (a process may sit
  // in a sub-cgroup of its container's scope, as systemd inside one does).
  for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
    ref.container_id = ContainerIdOf(*it);
    if (!ref.container_id.empty()) break;
  }
  return ref;
}

ContainerRef ParseCgroupFile(std::string_view text) {
  ContainerRef first_v1;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    // "<id>:<controllers>:<path>"; the path may itself hold ':'.
    const auto c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    const auto c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const ContainerRef ref = ParseCgroupPath(line.substr(c2 + 1));
    if (line.starts_with("0::")) {
      if (!ref.empty()) return ref;
    } else if (first_v1.empty()) {
      first_v1 = ref;
    }
  }
  return first_v1;
}

}  // namespace rnic::nl
