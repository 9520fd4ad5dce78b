// The exporter's own metrics: the standard process_* set (read from
// /proc/self) and rnic_build_info.
#pragma once

#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/metrics/metric_set.h"

namespace rnic {

void AddProcessMetrics(MetricSet& out);
void AddBuildInfo(MetricSet& out);
// The families the exporter itself emits (README table, output checks).
[[nodiscard]] std::vector<const FamilyDesc*> ExporterFamilies();

}  // namespace rnic
