#include "collectors/common/metric_set.h"

namespace rnic {

prometheus::MetricFamily& MetricSet::Family(std::string_view name,
                                            std::string_view help,
                                            prometheus::MetricType type) {
  auto it = index_.find(std::string(name));
  if (it != index_.end()) return families_[it->second];
  prometheus::MetricFamily f;
  f.name = std::string(name);
  f.help = std::string(help);
  f.type = type;
  families_.push_back(std::move(f));
  index_.emplace(std::string(name), families_.size() - 1);
  return families_.back();
}

void MetricSet::AddCounter(std::string_view name, std::string_view help,
                           Labels labels, double value) {
  auto& f = Family(name, help, prometheus::MetricType::Counter);
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.counter.value = value;
  f.metric.push_back(std::move(m));
}

void MetricSet::AddGauge(std::string_view name, std::string_view help,
                         Labels labels, double value) {
  auto& f = Family(name, help, prometheus::MetricType::Gauge);
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  f.metric.push_back(std::move(m));
}

void MetricSet::AddHistogram(
    std::string_view name, std::string_view help, Labels labels,
    const std::vector<std::pair<double, std::uint64_t>>& buckets,
    std::uint64_t count, double sum) {
  auto& f = Family(name, help, prometheus::MetricType::Histogram);
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.histogram.sample_count = count;
  m.histogram.sample_sum = sum;
  m.histogram.bucket.reserve(buckets.size() + 1);
  for (const auto& [ub, c] : buckets) {
    m.histogram.bucket.push_back({c, ub});
  }
  m.histogram.bucket.push_back(
      {count, std::numeric_limits<double>::infinity()});
  f.metric.push_back(std::move(m));
}

std::size_t MetricSet::SeriesCount() const {
  std::size_t n = 0;
  for (const auto& f : families_) {
    if (f.type == prometheus::MetricType::Histogram) {
      for (const auto& m : f.metric) n += m.histogram.bucket.size() + 2;
    } else {
      n += f.metric.size();
    }
  }
  return n;
}

std::vector<prometheus::MetricFamily> MetricSet::Take() && {
  index_.clear();
  return std::move(families_);
}

void MetricSet::Merge(MetricSet&& other) {
  for (auto& f : other.families_) {
    auto it = index_.find(f.name);
    if (it == index_.end()) {
      index_.emplace(f.name, families_.size());
      families_.push_back(std::move(f));
    } else {
      auto& dst = families_[it->second].metric;
      dst.insert(dst.end(), std::make_move_iterator(f.metric.begin()),
                 std::make_move_iterator(f.metric.end()));
    }
  }
  other.families_.clear();
  other.index_.clear();
}

std::string_view LabelValue(const prometheus::ClientMetric& m,
                            std::string_view name) {
  for (const auto& l : m.label) {
    if (l.name == name) return l.value;
  }
  return {};
}

}  // namespace rnic
