// Families that more than one collector can emit, declared once. Which
// collector emits them on a host is decided at start-up (SharedFacts): RDMA
// netlink when the kernel answers, sysfs otherwise, never both.
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kPortState{
    "rnic_port_state", MetricType::Gauge, "device,port",
    "Logical port state as the kernel numbers it (enum ib_port_state: 1 DOWN, "
    "2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER); from RDMA netlink PORT_GET, "
    "or sysfs ports/N/state when netlink is not available."};

inline constexpr FamilyDesc kPortPhysicalState{
    "rnic_port_physical_state", MetricType::Gauge, "device,port",
    "Physical port state as the kernel numbers it (enum ib_port_phys_state: "
    "1 SLEEP, 2 POLLING, 3 DISABLED, 4 PORT_CONFIGURATION_TRAINING, 5 "
    "LINK_UP, 6 LINK_ERROR_RECOVERY, 7 PHY_TEST); from RDMA netlink PORT_GET, "
    "or sysfs ports/N/phys_state when netlink is not available."};

// Driver hardware counters: one family per kernel counter name, named at run
// time (HwCounterFamily in collectors/metrics/hw_counters.h). These two
// templates document them.
inline constexpr FamilyDesc kHwCounter{
    "rnic_hw_<counter>_total", MetricType::Counter, "device,port",
    "Driver hardware counter <counter> (RDMA netlink STAT_GET, or sysfs "
    "hw_counters/ when netlink is not available; the same values). The "
    "kernel name is in the metric name (CamelCase as snake_case) and in "
    "HELP, with its meaning from a description table. 32-bit counters are "
    "extended to 64 bits. Device-level counters (sysfs only) have no port "
    "label."};

inline constexpr FamilyDesc kHwGauge{
    "rnic_hw_<gauge>", MetricType::Gauge, "device,port",
    "Driver hw counter entries that are levels, not counts (bnxt_re active_* "
    "and watermark_*, hfi1 DRIVER_CtxtsOpen)."};

}  // namespace rnic::families
