#include "collectors/host/host_facts.h"

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "collectors/common/dir_fd.h"
#include "collectors/common/range_list.h"
#include "collectors/common/small_file.h"

namespace rnic {

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
  auto text = ReadSmallFile(path);
  if (!text.ok()) return text.error();
  return ParseInt(*text, path);
}

Result<std::vector<int>> ReadCpuList(const std::string& path) {
  auto text = ReadSmallFile(path);
  if (!text.ok()) return text.error();
  auto cpus = ParseCpuList(*text);
  if (!cpus.ok()) return Error{path + ": " + cpus.error().message, EINVAL};
  return cpus;
}

}  // namespace

Result<int> ReadInt(CachedFd& held, const std::string& path) {
  auto text = ReadSmallFile(held, path);
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
