// Names, HELP texts, kinds and widths of driver hardware counters (sysfs
// hw_counters/ and netlink STAT_GET carry the same names and values).
// NOTE: minimal version written on branch `netlink` so it builds alone; the
// sysfs collector's branch owns this file and its full description table,
// with the same API (take that version when merging).
#pragma once

#include <string>
#include <string_view>

namespace rnic {

// A few drivers list levels (e.g. bnxt_re active_qps) among their counters.
enum class HwCounterKind { kCounter, kGauge };

// "rnic_hw_<name>_total" for counters, "rnic_hw_<name>" for gauges;
// characters outside [a-zA-Z0-9_] become '_'.
[[nodiscard]] std::string HwCounterFamilyName(std::string_view kernel_name);
// Meaning plus kernel name; a generic text for unknown names (a counter is
// never dropped for being unknown). Never empty.
[[nodiscard]] std::string_view HwCounterHelp(std::string_view kernel_name);
[[nodiscard]] HwCounterKind HwCounterKindOf(std::string_view kernel_name);
// 32 for counters drivers read from 32-bit registers (mlx5 Q counters),
// else 64.
[[nodiscard]] int HwCounterWidthBits(std::string_view kernel_name);
[[nodiscard]] bool HwCounterKnown(std::string_view kernel_name);

inline constexpr std::string_view kHwCounterGenericHelp =
    "Driver hardware counter (sysfs hw_counters or RDMA netlink STAT_GET); the "
    "kernel counter name is part of the metric name.";

}  // namespace rnic
