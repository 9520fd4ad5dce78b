// PCIe bandwidth per RNIC without configuration: which Intel IIO stack
// (uncore_iio_<n>, one per PCIe root complex and die) an RDMA PCI function
// sits on, from the kernel's mapping files uncore_iio_<n>/die<d> (Linux >=
// 5.15 on Skylake-SP and later; each holds the root bus "0000:80" of stack
// n on die d), and the free-running bandwidth events of that stack
// (uncore_iio_free_running_<n>: bw_in_port<k>, bw_out_port<k>).
#pragma once

#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/perf/pmu_catalog.h"

namespace rnic::perf {

struct IioStack {
  int index = 0;         // n of uncore_iio_<n>
  int die = 0;           // d of die<d>
  std::string root_bus;  // "0000:80"
  [[nodiscard]] std::string pmu() const {
    return "uncore_iio_" + std::to_string(index);
  }
  [[nodiscard]] std::string free_running_pmu() const {
    return "uncore_iio_free_running_" + std::to_string(index);
  }
};

// Every (stack, die) the kernel maps, from <sysfs>/bus/event_source/devices.
// Empty when the PMUs or their die files are absent (not Intel, an older
// kernel, a VM).
[[nodiscard]] std::vector<IioStack> ListIioStacks(const std::string& sysfs);
// The stack whose root bus is `root_bus`, or nullptr.
[[nodiscard]] const IioStack* FindStack(const std::vector<IioStack>& stacks,
                                        const std::string& root_bus);

// An RDMA device's PCI function (from the host model).
struct RdmaFunction {
  std::string device;
  std::string pci;       // "0000:81:00.0"
  std::string root_bus;  // "0000:80"
};
// The RDMA functions on one stack, sorted by device name; the first
// reports the stack's bytes (so a sum over devices counts each stack once).
struct StackUse {
  IioStack stack;
  std::vector<RdmaFunction> functions;
};
// Groups `functions` by the stack of their root bus; functions on no
// mapped stack (virtual devices, another vendor's root complex) are left out.
[[nodiscard]] std::vector<StackUse> MapFunctions(
    const std::vector<IioStack>& stacks, std::vector<RdmaFunction> functions);

struct BandwidthEvent {
  std::string name;       // "bw_in_port0"
  std::string direction;  // "in" or "out"
  double bytes_per_count = 1;
};
// The bw_in_port<k>/bw_out_port<k> events of a free-running IIO PMU with
// their scale in bytes; an event whose unit is not a byte unit is an error.
[[nodiscard]] Result<std::vector<BandwidthEvent>> BandwidthEvents(
    const Pmu& free_running);
// An event's .scale times its .unit in bytes ("MiB": 2^20, "KiB", "B" or
// "" bytes).
[[nodiscard]] Result<double> BytesPerCount(const PmuEvent& ev);

}  // namespace rnic::perf
