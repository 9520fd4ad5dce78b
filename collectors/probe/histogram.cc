#include "collectors/probe/histogram.h"

#include <algorithm>
#include <limits>

namespace rnic::probe {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  // First bound >= value: `le` is inclusive.
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
  ++count_;
  sum_ += value;
}

std::vector<std::pair<double, std::uint64_t>> Histogram::Cumulative() const {
  std::vector<std::pair<double, std::uint64_t>> out;
  out.reserve(bounds_.size());
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    acc += counts_[i];
    out.emplace_back(bounds_[i], acc);
  }
  return out;
}

double Histogram::Quantile(double q) const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const double rank = q * static_cast<double>(count_);
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    const std::uint64_t prev = acc;
    acc += counts_[i];
    if (static_cast<double>(acc) >= rank && counts_[i] > 0) {
      if (i == bounds_.size()) return bounds_.back();  // +Inf bucket
      const double lo = i == 0 ? 0.0 : bounds_[i - 1];
      const double hi = bounds_[i];
      const double frac =
          (rank - static_cast<double>(prev)) / static_cast<double>(counts_[i]);
      return lo + (hi - lo) * frac;
    }
  }
  return bounds_.back();
}

const std::vector<double>& LatencyBuckets() {
  // Literals, so the exposition prints "3e-06" and not a rounding artefact.
  static const std::vector<double> kBuckets = {
      0.5e-6, 1e-6,   2e-6,   3e-6,   5e-6,   10e-6, 20e-6, 30e-6,
      50e-6,  100e-6, 200e-6, 300e-6, 500e-6, 1e-3,  2e-3,  3e-3,
      5e-3,   10e-3,  20e-3,  30e-3,  50e-3,  100e-3};
  return kBuckets;
}

const std::vector<double>& MrBuckets() {
  static const std::vector<double> kBuckets = {
      1e-6,   2e-6,   5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6,
      500e-6, 1e-3,   2e-3, 5e-3,  10e-3, 20e-3, 50e-3,  100e-3,
      200e-3, 500e-3, 1,    2,     5,     10};
  return kBuckets;
}

}  // namespace rnic::probe
