// Text the health collectors and the pod attribution parse from outside the
// process: PCIe link attributes, AER counter files (collectors/health/
// pcie_parse.h), /proc/<pid>/cgroup (collectors/netlink/cgroup_parse.h),
// and what the GPUDirect checks read (collectors/host/pci_tree.h,
// gpudirect.h: a bus/pci/devices link target, a kernel release, binary
// configuration space), every parser on the same bytes. Seeds: the files of
// tests/fixtures/health and tests/fixtures/gpu, cgroup files of pods and
// Slurm jobs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/health/pcie_parse.h"
#include "collectors/host/gpudirect.h"
#include "collectors/host/pci_tree.h"
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
  sink += ref.slurm_job_id.size();
  sink += rnic::nl::ParseCgroupPath(text).container_id.size();
  if (auto a = rnic::gpu::ParseAncestors(text, "0000:3b:00.0")) {
    sink += a->size();
  }
  if (auto acs = rnic::gpu::FindAcs(text)) sink += acs->control;
  if (auto ats = rnic::gpu::FindExtCap(text, 0x000f)) sink += *ats;
  if (auto k = rnic::gpu::ParseKernelRelease(text)) sink += k->first;
  sink += rnic::gpu::NvmlBusId(text).size();
  g_sink = sink;
  return 0;
}
