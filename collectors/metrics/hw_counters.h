// Naming and description of driver hardware counters: the files of sysfs
// hw_counters/ and the entries of RDMA netlink STAT_GET, which carry the same
// names. Every counter keeps its kernel name inside the metric name, so a
// counter of a driver we have never seen is still exported (with a generic
// HELP); the table below only adds meaning.
#pragma once

#include <string>
#include <string_view>

#include "collectors/metrics/family.h"

namespace rnic {

// A few drivers publish current levels (bnxt_re active_qps, hfi1
// DRIVER_CtxtsOpen) among their hw_counters. Those are gauges: exporting them
// as counters would make every decrease look like a reset.
enum class HwCounterKind { kCounter, kGauge };

// "rnic_hw_<name>_total" for counters, "rnic_hw_<name>" for the known gauges,
// <name> by the project's one rule, MetricNamePart
// (collectors/metrics/family.h).
[[nodiscard]] std::string HwCounterFamilyName(std::string_view kernel_name);

// HELP text: meaning plus kernel name and driver(s) for known names; a generic
// text for names the table does not know. Never empty.
[[nodiscard]] std::string_view HwCounterHelp(std::string_view kernel_name);

[[nodiscard]] HwCounterKind HwCounterKindOf(std::string_view kernel_name);

// Everything an emitter needs for one kernel counter name, worked out once
// (when the counter first appears on a port) and kept: the family, interned
// for the life of the process, its kind and its wrap width.
struct HwCounterMeta {
  const FamilyDesc* family = nullptr;
  bool gauge = false;
  int width = 64;
};
[[nodiscard]] HwCounterMeta HwCounterFor(std::string_view kernel_name);

// Bits at which the raw value wraps: 32 for the mlx5 Q counters (the driver
// reads them as __be32), 64 for everything else (drivers keep u64/atomic64
// values or extend narrow registers themselves).
[[nodiscard]] int HwCounterWidthBits(std::string_view kernel_name);

// Whether the table has an entry (for tests and docs).
[[nodiscard]] bool HwCounterKnown(std::string_view kernel_name);

// hw_counters/lifespan is not a counter: it is how long (ms) the kernel caches
// values. Exported as a gauge in seconds (sysfs_families.h declares it).
inline constexpr std::string_view kHwCountersLifespanFile = "lifespan";
inline constexpr std::string_view kHwCounterGenericHelp =
    "Driver hardware counter (sysfs hw_counters or RDMA netlink STAT_GET); the "
    "kernel counter name is part of the metric name. rnic_exporter has no "
    "description for it.";

}  // namespace rnic
