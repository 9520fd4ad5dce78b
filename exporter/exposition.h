// Serialization of metric families in the Prometheus text format 0.0.4 and
// OpenMetrics 1.0, replacing prometheus-cpp 1.0.1's TextSerializer, which
// leaves HELP unescaped, prints "Nan", loses integer digits above 1e16 and
// knows no OpenMetrics.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

#include "collectors/metrics/metric_set.h"

namespace rnic {

enum class ExpositionFormat { kText004, kOpenMetrics100 };

// Picks the format from an HTTP Accept header by q-value; text 0.0.4 when
// the header is absent or names nothing we serve.
[[nodiscard]] ExpositionFormat NegotiateFormat(std::string_view accept);

[[nodiscard]] std::string_view ContentType(ExpositionFormat format);

// Appends the exposition of `families` to `out`.
void Serialize(const std::vector<prometheus::MetricFamily>& families,
               ExpositionFormat format, std::string& out);

// Appends the exposition of a scrape's MetricSet to `out`.
void Serialize(const MetricSet& set, ExpositionFormat format, std::string& out);

// Exposed for tests: the number primitive (escaping: label_set.h).
void AppendValue(double v, std::string& out);

}  // namespace rnic
