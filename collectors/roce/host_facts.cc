#include "collectors/roce/host_facts.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "collectors/common/range_list.h"

namespace rnic {

namespace {

void TrimEnd(std::string& s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' ||
                        s.back() == '\t' || s.back() == '\0')) {
    s.pop_back();
  }
}

}  // namespace

Result<std::string> ReadTrimmed(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno("open " + path, errno);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      const int err = errno;
      close(fd);
      return Error::FromErrno("read " + path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  TrimEnd(out);
  return out;
}

Result<std::string> ReadTrimmed(CachedFd& held, const std::string& path) {
  char buf[4096];
  const long n = held.ReadFile(path.c_str(), buf, sizeof(buf));
  if (n < 0) return Error::FromErrno("read " + path, static_cast<int>(-n));
  std::string out(buf, static_cast<std::size_t>(n));
  TrimEnd(out);
  return out;
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return Error::FromErrno("opendir " + path, errno);
  std::vector<std::string> out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

Result<int> ParseInt(const std::string& text, const std::string& what) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return Error{what + ": not an integer: '" + text + "'", EINVAL};
  }
  return v;
}

Result<int> ReadInt(const std::string& path) {
  auto text = ReadTrimmed(path);
  if (!text.ok()) return text.error();
  return ParseInt(*text, path);
}

Result<std::vector<int>> ReadCpuList(const std::string& path) {
  auto text = ReadTrimmed(path);
  if (!text.ok()) return text.error();
  auto cpus = ParseCpuList(*text);
  if (!cpus.ok()) return Error{path + ": " + cpus.error().message, EINVAL};
  return cpus;
}

}  // namespace

Result<int> ReadInt(CachedFd& held, const std::string& path) {
  auto text = ReadTrimmed(held, path);
  if (!text.ok()) return text.error();
  return ParseInt(*text, path);
}

Result<int> ReadNetdevMtu(const std::string& sysfs, const std::string& netdev) {
  return ReadInt(sysfs + "/class/net/" + netdev + "/mtu");
}

Result<std::vector<int>> ReadNodeCpus(const std::string& sysfs, int node) {
  return ReadCpuList(sysfs + "/devices/system/node/node" +
                     std::to_string(node) + "/cpulist");
}

Result<const std::vector<int>*> NodeCpuCache::Get(int node) {
  auto it = cpus_.find(node);
  if (it == cpus_.end()) {
    auto cpus = ReadNodeCpus(sysfs_, node);
    if (!cpus.ok()) return cpus.error();
    it = cpus_.emplace(node, std::move(cpus).value()).first;
  }
  return &it->second;
}

Result<std::vector<int>> ReadIrqAffinity(const std::string& procfs, int irq) {
  return ReadCpuList(procfs + "/irq/" + std::to_string(irq) +
                     "/smp_affinity_list");
}

IrqPlacement CheckIrqPlacement(const std::string& procfs,
                               const std::vector<int>& irqs,
                               const std::vector<int>& node_cpus) {
  IrqPlacement out;
  out.irqs = static_cast<int>(irqs.size());
  std::vector<int> node = node_cpus;
  std::sort(node.begin(), node.end());
  for (int irq : irqs) {
    auto cpus = ReadIrqAffinity(procfs, irq);
    if (!cpus.ok()) {
      out.errors.push_back(cpus.error().ToString());
      continue;
    }
    ++out.checked;
    const bool off = std::any_of(cpus->begin(), cpus->end(), [&](int c) {
      return !std::binary_search(node.begin(), node.end(), c);
    });
    if (off) ++out.off_node;
  }
  return out;
}

Result<std::vector<EcnSetting>> ReadRoceEcn(const std::string& sysfs,
                                            const std::string& netdev) {
  const std::string base = sysfs + "/class/net/" + netdev + "/ecn";
  std::vector<EcnSetting> out;
  int missing_roles = 0;
  Error last{"", 0};
  for (const char* role : {"np", "rp"}) {
    const std::string dir = base + "/roce_" + role + "/enable";
    auto entries = ListDirectory(dir);
    if (!entries.ok()) {
      ++missing_roles;
      last = entries.error();
      continue;
    }
    for (const auto& e : *entries) {
      auto prio = ParseInt(e, "ecn priority");
      if (!prio.ok() || *prio < 0 || *prio > 7) continue;
      auto v = ReadInt(dir + "/" + e);
      if (!v.ok()) continue;  // one unreadable switch costs only itself
      out.push_back(EcnSetting{*prio, role, *v != 0});
    }
  }
  if (missing_roles == 2) return last;
  return out;
}

}  // namespace rnic
