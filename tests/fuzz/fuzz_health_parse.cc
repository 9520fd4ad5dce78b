// Text the health collectors and the pod attribution parse from outside the
// process: PCIe link attributes, AER counter files (collectors/health/
// pcie_parse.h) and /proc/<pid>/cgroup (collectors/netlink/cgroup_parse.h),
// every parser on the same bytes. Seeds: the files of tests/fixtures/health
// and the merged tree's cgroup file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/health/pcie_parse.h"
#include "collectors/netlink/cgroup_parse.h"

namespace {
std::uint64_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::uint64_t sink = 0;
  if (auto s = rnic::pcie::ParseLinkSpeed(text)) sink += *s > 0 ? 1 : 0;
  if (auto w = rnic::pcie::ParseLinkWidth(text)) sink += *w;
  if (auto a = rnic::pcie::ParseAerCounters(text); a.ok()) {
    for (const auto& c : *a) sink += c.count + c.error.size();
  }
  const auto ref = rnic::nl::ParseCgroupFile(text);
  sink += ref.pod_uid.size() + ref.container_id.size();
  sink += rnic::nl::ParseCgroupPath(text).container_id.size();
  g_sink = sink;
  return 0;
}
