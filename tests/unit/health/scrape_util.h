// Scrapes a collector into flat samples for the health collectors' tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"

namespace rnic::testing {

struct FlatSample {
  std::string family;
  std::map<std::string, std::string> labels;
  double value = 0;
};

inline std::vector<FlatSample> ScrapeFlat(
    Collector& c, std::vector<prometheus::MetricFamily>* fams = nullptr) {
  MetricSet out;
  EXPECT_TRUE(c.Collect(ScrapeContext{std::chrono::steady_clock::now() +
                                      std::chrono::hours(1)},
                        out)
                  .ok());
  std::vector<FlatSample> samples;
  auto families = out.families();
  for (const auto& f : families) {
    for (const auto& m : f.metric) {
      FlatSample s{f.name,
                   {},
                   f.type == prometheus::MetricType::Counter ? m.counter.value
                                                             : m.gauge.value};
      for (const auto& l : m.label) s.labels[l.name] = l.value;
      samples.push_back(std::move(s));
    }
  }
  if (fams) *fams = std::move(families);
  return samples;
}

// The value of the one sample of `family` whose labels include `want`;
// nullopt when none matches.
inline std::optional<double> ValueOf(
    const std::vector<FlatSample>& samples, const std::string& family,
    const std::map<std::string, std::string>& want) {
  std::optional<double> found;
  for (const auto& s : samples) {
    if (s.family != family) continue;
    bool match = true;
    for (const auto& [k, v] : want) {
      auto it = s.labels.find(k);
      if (it == s.labels.end() || it->second != v) match = false;
    }
    if (!match) continue;
    EXPECT_FALSE(found.has_value()) << family << ": more than one match";
    found = s.value;
  }
  return found;
}

inline int CountOf(const std::vector<FlatSample>& samples,
                   const std::string& family) {
  int n = 0;
  for (const auto& s : samples) n += s.family == family;
  return n;
}

}  // namespace rnic::testing
