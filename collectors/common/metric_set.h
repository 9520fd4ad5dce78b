// MetricSet: the families one collector produces in one scrape. It groups
// samples by family name so a collector can never emit the same family twice
// (prometheus-cpp's serializer would print two HELP/TYPE blocks).
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rnic {

using Label = prometheus::ClientMetric::Label;
using Labels = std::vector<Label>;

class MetricSet {
 public:
  // Returns the family `name`, creating it on first use. HELP and type given
  // at first use win; later calls only look the family up.
  prometheus::MetricFamily& Family(std::string_view name, std::string_view help,
                                   prometheus::MetricType type);

  void AddCounter(std::string_view name, std::string_view help, Labels labels,
                  double value);
  void AddGauge(std::string_view name, std::string_view help, Labels labels,
                double value);
  // `buckets` are (upper bound, cumulative count) without +Inf, which is added
  // from `count`.
  void AddHistogram(
      std::string_view name, std::string_view help, Labels labels,
      const std::vector<std::pair<double, std::uint64_t>>& buckets,
      std::uint64_t count, double sum);

  [[nodiscard]] bool empty() const { return families_.empty(); }
  [[nodiscard]] std::size_t size() const { return families_.size(); }
  [[nodiscard]] const std::vector<prometheus::MetricFamily>& families() const {
    return families_;
  }
  // Number of samples (series) in the set; histograms count their buckets.
  [[nodiscard]] std::size_t SeriesCount() const;
  [[nodiscard]] std::vector<prometheus::MetricFamily> Take() &&;
  // Moves every family of `other` into this set (merging same-name families).
  void Merge(MetricSet&& other);

 private:
  std::vector<prometheus::MetricFamily> families_;
  std::unordered_map<std::string, std::size_t> index_;
};

// Finds a sample's label value, "" when absent. For tests and sorting.
[[nodiscard]] std::string_view LabelValue(const prometheus::ClientMetric& m,
                                          std::string_view name);

}  // namespace rnic
