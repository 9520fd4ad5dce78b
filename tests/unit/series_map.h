// A collector's output as "name{label=value,...,}" -> value, for tests that
// compare whole sets of series. Shared by the collectors' tests.
#pragma once

#include <prometheus/metric_type.h>

#include <map>
#include <string>

#include "collectors/metrics/metric_set.h"

namespace rnic::testing {

using SeriesMap = std::map<std::string, double>;

inline std::string SeriesKey(const std::string& family,
                             const prometheus::ClientMetric& m) {
  std::string key = family + "{";
  for (const auto& l : m.label) key += l.name + "=" + l.value + ",";
  return key + "}";
}

inline SeriesMap ToSeriesMap(const MetricSet& out) {
  SeriesMap s;
  for (const auto& f : out.families()) {
    for (const auto& m : f.metric) {
      s[SeriesKey(f.name, m)] = f.type == prometheus::MetricType::Counter
                                    ? m.counter.value
                                    : m.gauge.value;
    }
  }
  return s;
}

}  // namespace rnic::testing
