#include "collectors/metrics/metric_set.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace rnic {

MetricSet::Family& MetricSet::FamilyFor(const FamilyDesc& desc) {
  converted_valid_ = false;
  if (last_desc_ == &desc) return families_[last_index_];
  std::size_t i = 0;
  // Collectors emit a few dozen families at most, in runs: a scan from the
  // last hit finds the next one in a step or two without hashing.
  const std::size_t n = families_.size();
  for (std::size_t k = 0; k < n; ++k) {
    i = last_index_ + 1 + k;
    if (i >= n) i -= n;
    if (families_[i].desc == &desc) {
      last_desc_ = &desc;
      last_index_ = i;
      return families_[i];
    }
  }
  families_.push_back(Family{&desc, {}, {}});
  last_desc_ = &desc;
  last_index_ = families_.size() - 1;
  return families_.back();
}

void MetricSet::Add(const FamilyDesc& family, const LabelSetPtr& labels,
                    double value) {
  FamilyFor(family).samples.push_back(Sample{labels, value});
}

void MetricSet::Add(const FamilyDesc& family, LabelSetPtr&& labels,
                    double value) {
  FamilyFor(family).samples.push_back(Sample{std::move(labels), value});
}

void MetricSet::Add(const FamilyDesc& family,
                    std::initializer_list<LabelPair> labels, double value) {
  FamilyFor(family).samples.push_back(Sample{LabelSet::Make(labels), value});
}

void MetricSet::AddCounter(std::string_view name, std::string_view help,
                           Labels labels, double value) {
  const FamilyDesc& d =
      InternFamily(name, prometheus::MetricType::Counter, "", help);
  FamilyFor(d).samples.push_back(
      Sample{LabelSet::Make(std::move(labels)), value});
}

void MetricSet::AddGauge(std::string_view name, std::string_view help,
                         Labels labels, double value) {
  const FamilyDesc& d =
      InternFamily(name, prometheus::MetricType::Gauge, "", help);
  FamilyFor(d).samples.push_back(
      Sample{LabelSet::Make(std::move(labels)), value});
}

void MetricSet::AddHistogram(
    const FamilyDesc& family, Labels labels,
    const std::vector<std::pair<double, std::uint64_t>>& buckets,
    std::uint64_t count, double sum) {
  prometheus::ClientMetric m;
  m.label.reserve(labels.size());
  for (auto& l : labels) {
    m.label.push_back({std::move(l.name), std::move(l.value)});
  }
  m.histogram.sample_count = count;
  m.histogram.sample_sum = sum;
  m.histogram.bucket.reserve(buckets.size() + 1);
  for (const auto& [ub, c] : buckets) m.histogram.bucket.push_back({c, ub});
  m.histogram.bucket.push_back(
      {count, std::numeric_limits<double>::infinity()});
  FamilyFor(family).client.push_back(std::move(m));
}

void MetricSet::AddFamily(const FamilyDesc& family,
                          prometheus::MetricFamily&& f) {
  auto& dst = FamilyFor(family).client;
  dst.insert(dst.end(), std::make_move_iterator(f.metric.begin()),
             std::make_move_iterator(f.metric.end()));
}

std::size_t MetricSet::SeriesCount() const {
  std::size_t n = 0;
  for (const auto& f : families_) {
    n += f.samples.size();
    for (const auto& m : f.client) {
      n += f.desc->type == prometheus::MetricType::Histogram
               ? m.histogram.bucket.size() + 2
               : 1;
    }
  }
  return n;
}

const std::vector<prometheus::MetricFamily>& MetricSet::families() const {
  if (converted_valid_) return converted_;
  converted_valid_ = true;
  std::vector<prometheus::MetricFamily>& out = converted_;
  out.clear();
  out.reserve(families_.size());
  for (const auto& f : families_) {
    prometheus::MetricFamily pf;
    pf.name = std::string(f.desc->name);
    pf.help = std::string(f.desc->help);
    pf.type = f.desc->type;
    pf.metric.reserve(f.size());
    for (const auto& s : f.samples) {
      prometheus::ClientMetric m;
      for (const auto& l : s.labels->labels()) {
        m.label.push_back({l.name, l.value});
      }
      if (f.desc->type == prometheus::MetricType::Counter) {
        m.counter.value = s.value;
      } else if (f.desc->type == prometheus::MetricType::Untyped) {
        m.untyped.value = s.value;
      } else {
        m.gauge.value = s.value;
      }
      pf.metric.push_back(std::move(m));
    }
    pf.metric.insert(pf.metric.end(), f.client.begin(), f.client.end());
    out.push_back(std::move(pf));
  }
  return out;
}

void MetricSet::Merge(MetricSet&& other) {
  converted_valid_ = false;
  std::unordered_map<std::string_view, std::size_t> index;
  index.reserve(families_.size() + other.families_.size());
  for (std::size_t i = 0; i < families_.size(); ++i) {
    index.emplace(families_[i].desc->name, i);
  }
  for (auto& f : other.families_) {
    auto [pos, fresh] = index.emplace(f.desc->name, families_.size());
    if (fresh) {
      families_.push_back(std::move(f));
      continue;
    }
    auto it = families_.begin() + static_cast<std::ptrdiff_t>(pos->second);
    if (it->samples.empty()) {
      it->samples = std::move(f.samples);
    } else {
      it->samples.insert(it->samples.end(),
                         std::make_move_iterator(f.samples.begin()),
                         std::make_move_iterator(f.samples.end()));
    }
    it->client.insert(it->client.end(),
                      std::make_move_iterator(f.client.begin()),
                      std::make_move_iterator(f.client.end()));
  }
  other.families_.clear();
  other.last_desc_ = nullptr;
  last_desc_ = nullptr;
}

void MetricSet::SortByName() {
  converted_valid_ = false;
  std::stable_sort(families_.begin(), families_.end(),
                   [](const Family& a, const Family& b) {
                     return a.desc->name < b.desc->name;
                   });
  last_desc_ = nullptr;
}

std::string_view LabelValue(const prometheus::ClientMetric& m,
                            std::string_view name) {
  for (const auto& l : m.label) {
    if (l.name == name) return l.value;
  }
  return {};
}

}  // namespace rnic
