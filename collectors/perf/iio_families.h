// Families of the perf collector's PCIe bandwidth per RNIC (uncore IIO),
// declared once (collectors/metrics/family.h).
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::perf::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kIioBytes{
    "rnic_pcie_iio_bytes_total", MetricType::Counter, "device,direction",
    "Bytes through the Intel IIO stack (PCIe root complex) the RDMA device "
    "sits on, from the free-running uncore_iio_free_running_<n> bw_in_port* "
    "(direction=\"in\": device to host, e.g. the NIC writing received data) "
    "and bw_out_port* (\"out\": host to device) counters, summed over the "
    "stack's ports and scaled by their .scale/.unit. Other devices on the "
    "same stack count too; devices sharing a stack report it once, under the "
    "first device name (see rnic_pcie_iio_stack_info)."};
inline constexpr FamilyDesc kIioStackInfo{
    "rnic_pcie_iio_stack_info", MetricType::Gauge,
    "device,pci,root_bus,pmu,die,reported_as",
    "The IIO stack of an RDMA device's PCI function, from the kernel's "
    "uncore_iio_<n>/die<d> root-bus mapping; reported_as names the device "
    "whose rnic_pcie_iio_bytes_total carries the stack. Always 1."};

}  // namespace rnic::perf::families
