#include "collectors/netlink/comm_resolver.h"

#include <fcntl.h>

#include <charconv>
#include <sstream>
#include <string_view>

#include "collectors/common/small_file.h"

namespace rnic::nl {

namespace {

// The first line of <procfs>/<pid>/comm (the command name, spaces kept).
std::optional<std::string> ReadComm(const std::string& procfs,
                                    std::uint32_t pid) {
  const std::string path = procfs + "/" + std::to_string(pid) + "/comm";
  char buf[256];
  const long n = ReadSmallFile(AT_FDCWD, path.c_str(), buf, sizeof(buf));
  if (n <= 0) return std::nullopt;
  std::string_view comm(buf, static_cast<std::size_t>(n));
  comm = comm.substr(0, comm.find('\n'));
  if (comm.empty()) return std::nullopt;
  return std::string(comm);
}

}  // namespace

std::optional<std::uint32_t> CommResolver::TgidOf(std::uint32_t pid) const {
  auto text = ReadSmallFile(procfs_ + "/" + std::to_string(pid) + "/status");
  if (!text.ok()) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  // Tgid is the fourth line; stop well before the long tail of the file.
  for (int i = 0; i < 16 && std::getline(in, line); ++i) {
    if (line.rfind("Tgid:", 0) != 0) continue;
    std::uint32_t tgid = 0;
    const char* p = line.c_str() + 5;
    while (*p == ' ' || *p == '\t') ++p;
    const char* end = line.c_str() + line.size();
    auto [ptr, ec] = std::from_chars(p, end, tgid);
    if (ec != std::errc() || ptr == p || tgid == 0) return std::nullopt;
    return tgid;
  }
  return std::nullopt;
}

std::uint32_t CommResolver::ProcessOf(std::uint32_t pid) {
  auto [it, inserted] = tgid_.try_emplace(pid, pid);
  if (inserted) it->second = TgidOf(pid).value_or(pid);
  return it->second;
}

const std::string& CommResolver::CommOfPid(std::uint32_t pid) {
  auto [it, inserted] = by_pid_.try_emplace(pid);
  if (inserted) {
    const std::uint32_t tgid = ProcessOf(pid);
    auto comm = ReadComm(procfs_, tgid);
    if (!comm && tgid != pid) comm = ReadComm(procfs_, pid);
    it->second = comm ? std::move(*comm) : std::string(kUnknownComm);
  }
  return it->second;
}

const ContainerRef& CommResolver::ContainerOfPid(std::uint32_t pid) {
  auto [it, inserted] = containers_by_pid_.try_emplace(pid);
  if (inserted) {
    auto text = ReadSmallFile(procfs_ + "/" + std::to_string(ProcessOf(pid)) +
                              "/cgroup");
    it->second = ParseCgroupFile(text.ok() ? *text : std::string());
    if (!containers_) it->second.pod_uid.clear();
    if (!containers_) it->second.container_id.clear();
    if (!slurm_) it->second.slurm_job_id.clear();
  }
  return it->second;
}

const std::string& CommResolver::Group(const Owner& owner) {
  if ((!containers_ && !slurm_) || !owner.pid) return Resolve(owner);
  auto [it, inserted] = groups_.try_emplace(*owner.pid);
  if (inserted) {
    it->second =
        MakeGroupKey(CommOfPid(*owner.pid), ContainerOfPid(*owner.pid));
  }
  return it->second;
}

std::string MakeGroupKey(const std::string& comm, const ContainerRef& ref) {
  if (ref.empty()) return comm;
  return comm + '\x1f' + ref.pod_uid + '\x1f' + ref.container_id + '\x1f' +
         ref.slurm_job_id;
}

GroupLabels SplitGroupKey(const std::string& key) {
  // From the end: pod UIDs, container IDs and job ids never hold the
  // separator, a comm (any bytes a process names itself) might.
  const auto c = key.rfind('\x1f');
  if (c == std::string::npos || c == 0) return {key, {}};
  const auto b = key.rfind('\x1f', c - 1);
  if (b == std::string::npos || b == 0) return {key, {}};
  const auto a = key.rfind('\x1f', b - 1);
  if (a == std::string::npos) return {key, {}};
  return {key.substr(0, a),
          {key.substr(a + 1, b - a - 1), key.substr(b + 1, c - b - 1),
           key.substr(c + 1)}};
}

const std::string& CommResolver::Resolve(const Owner& owner) {
  if (owner.pid) return CommOfPid(*owner.pid);
  std::string key(owner.kern_name);
  auto [it, inserted] = by_kern_.try_emplace(key);
  if (inserted) {
    it->second = key.empty() ? std::string(kUnknownComm) : "[" + key + "]";
  }
  return it->second;
}

}  // namespace rnic::nl
