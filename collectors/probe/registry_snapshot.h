// The one place where the probe's prometheus-cpp instruments become scrape
// output: what Registry::Collect() returned, appended to the scrape's
// MetricSet. Kept to this one function so the MetricSet API (about to take
// family descriptors) is adapted here alone.
#pragma once

#include <prometheus/metric_family.h>

#include <span>
#include <vector>

#include "collectors/common/metric_set.h"

namespace rnic::probe {

// Families without a series are left out (a family is registered before
// its first series exists). Labels come out of prometheus-cpp sorted by
// name; they are put back in the order the exporter has always printed
// them (device, port, operation, size_bytes, status, result, event), and
// series are sorted by label values so the output is stable.
void AppendCollected(std::vector<prometheus::MetricFamily> collected,
                     MetricSet& out);
// The same for another collector's instruments (the fabric probe): each
// family must be among `declared`; others are left out.
void AppendCollected(std::vector<prometheus::MetricFamily> collected,
                     MetricSet& out,
                     std::span<const FamilyDesc* const> declared);

}  // namespace rnic::probe
