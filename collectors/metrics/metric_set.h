// MetricSet: the families one collector produces in one scrape, grouped by
// family so none is emitted twice.
//
// Two representations live side by side. The collectors' per-scrape path
// stores a sample as (shared label set, value): a profile of a 16-port
// sysfs scrape spent >15 % building and freeing prometheus::ClientMetric
// label vectors and strings per series, so label sets are rendered once per
// port (LabelSet) and a sample copies a pointer. Long-lived prometheus-cpp
// instruments (the probe's histograms, the exporter's own counters) arrive
// as prometheus::MetricFamily from Registry::Collect() and are kept as they
// are (AddFamily). The serializer (exporter/exposition) writes both;
// families() converts everything to prometheus-cpp's form for tests.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/metrics/family.h"
#include "collectors/metrics/label_set.h"

namespace rnic {

struct Sample {
  LabelSetPtr labels;
  double value = 0;
};

class MetricSet {
 public:
  struct Family {
    const FamilyDesc* desc = nullptr;
    std::vector<Sample> samples;                   // counter, gauge
    std::vector<prometheus::ClientMetric> client;  // histograms, AddFamily
    [[nodiscard]] std::size_t size() const {
      return samples.size() + client.size();
    }
  };

  // The hot path: one sample of a declared family.
  void Add(const FamilyDesc& family, const LabelSetPtr& labels, double value);
  void Add(const FamilyDesc& family, LabelSetPtr&& labels, double value);

  // Convenience for cold paths (builds a label set per call).
  void Add(const FamilyDesc& family, std::initializer_list<LabelPair> labels,
           double value);
  // `buckets` are (upper bound, cumulative count) without +Inf, which is
  // added from `count`.
  void AddHistogram(
      const FamilyDesc& family, Labels labels,
      const std::vector<std::pair<double, std::uint64_t>>& buckets,
      std::uint64_t count, double sum);
  // A family collected from prometheus-cpp instruments; its name, type and
  // HELP must match `family`.
  void AddFamily(const FamilyDesc& family, prometheus::MetricFamily&& f);

  // Families named at run time without a declaration at hand (tests, tools):
  // interned (see InternFamily).
  void AddCounter(std::string_view name, std::string_view help, Labels labels,
                  double value);
  void AddGauge(std::string_view name, std::string_view help, Labels labels,
                double value);
  void AddHistogram(
      std::string_view name, std::string_view help, Labels labels,
      const std::vector<std::pair<double, std::uint64_t>>& buckets,
      std::uint64_t count, double sum) {
    AddHistogram(
        InternFamily(name, prometheus::MetricType::Histogram, "", help),
        std::move(labels), buckets, count, sum);
  }

  [[nodiscard]] bool empty() const { return families_.empty(); }
  [[nodiscard]] std::size_t size() const { return families_.size(); }
  [[nodiscard]] const std::vector<Family>& raw() const { return families_; }
  // Number of samples (series) in the set; histograms count their buckets,
  // sum and count.
  [[nodiscard]] std::size_t SeriesCount() const;
  // Everything in prometheus-cpp's form (tests, tools). Built on demand and
  // kept until the set changes: the reference stays valid until then.
  [[nodiscard]] const std::vector<prometheus::MetricFamily>& families() const;
  [[nodiscard]] std::vector<prometheus::MetricFamily> Take() && {
    return families();
  }
  // Moves every family of `other` into this set (merging same families).
  void Merge(MetricSet&& other);
  // Orders families by name (collectors whose families appear in no fixed
  // order, so that output is stable).
  void SortByName();
  void Reserve(std::size_t families) { families_.reserve(families); }

 private:
  Family& FamilyFor(const FamilyDesc& desc);

  std::vector<Family> families_;
  const FamilyDesc* last_desc_ = nullptr;  // most sample runs hit one family
  std::size_t last_index_ = 0;
  mutable std::vector<prometheus::MetricFamily> converted_;
  mutable bool converted_valid_ = false;
};

// Finds a sample's label value, "" when absent. For tests and sorting.
[[nodiscard]] std::string_view LabelValue(const prometheus::ClientMetric& m,
                                          std::string_view name);

}  // namespace rnic
