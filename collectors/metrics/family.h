// Metric families, each declared once: name, type, HELP and label names in
// one FamilyDesc. Emission (MetricSet::Add), the docs binary (README tables),
// the output check and the dashboard lint all read the same declaration, so
// a HELP text cannot drift between two places.
//
// A collector declares its families as `inline constexpr FamilyDesc` in its
// <collector>_families.h and lists them in its CollectorSpec. Families that
// two collectors may both emit (port state: netlink_stat or sysfs) live in
// collectors/metrics/port_families.h. Names may hold one <placeholder> for
// families named at run time (driver counters, "rnic_hw_<counter>_total"):
// those are documented by the template and interned with InternFamily().
#pragma once

#include <prometheus/metric_type.h>

#include <string>
#include <string_view>
#include <vector>

namespace rnic {

struct FamilyDesc {
  std::string_view name;
  prometheus::MetricType type;
  std::string_view labels;  // comma-separated label names, "" for none
  std::string_view help;
};

[[nodiscard]] std::string_view TypeName(prometheus::MetricType type);

// A descriptor for a family named at run time (one per kernel counter name),
// stored for the life of the process: samples and caches may point at it
// from any scrape. Same name and type return the same descriptor; the HELP
// and labels of the first call win. Bounded by the distinct counter names
// the kernel ever shows.
[[nodiscard]] const FamilyDesc& InternFamily(std::string_view name,
                                             prometheus::MetricType type,
                                             std::string_view labels,
                                             std::string_view help);

// The one rule that turns a kernel counter name into a metric-name part:
// hfi1/irdma CamelCase ("RxWriteRequests", "ip4InReceives") becomes
// snake_case, and every character outside [a-z0-9_] becomes '_' (hfi1
// "RcvOverflow,32", "Pio Reserved 31"). Lower-case names (mlx5, rxe,
// bnxt_re) pass unchanged. The exact kernel name stays in the HELP text.
[[nodiscard]] std::string MetricNamePart(std::string_view kernel_name);

// Whether a declared name matches a concrete family name: equal, or equal
// around its one <placeholder> (which must match at least one character).
[[nodiscard]] bool FamilyNameMatches(std::string_view declared,
                                     std::string_view concrete);

}  // namespace rnic
