// The one place where prometheus-cpp instruments (the long-lived counters
// and histograms of the probe and the fabric probe) become scrape output:
// what Registry::Collect() returned, appended to the scrape's MetricSet
// under the families they were declared as.
#pragma once

#include <prometheus/metric_family.h>

#include <span>
#include <vector>

#include "collectors/metrics/metric_set.h"

namespace rnic {

// Each family must be among `declared`; others are left out, and so are
// families without a series (a family is registered before its first series
// exists). Labels come out of prometheus-cpp sorted by name; they are put
// back in the declared order (device, port, operation, size_bytes, ...),
// and series are sorted by label values so the output is stable.
void AppendCollected(std::vector<prometheus::MetricFamily> collected,
                     MetricSet& out,
                     std::span<const FamilyDesc* const> declared);

}  // namespace rnic
