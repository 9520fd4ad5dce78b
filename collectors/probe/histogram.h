// A fixed-bucket histogram (Prometheus semantics: cumulative `le` buckets
// plus count and sum). Not thread-safe: ProbeStats guards it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace rnic::probe {

class Histogram {
 public:
  // `bounds` are upper bounds, strictly increasing, without +Inf.
  explicit Histogram(std::vector<double> bounds);

  void Observe(double value);
  // (upper bound, cumulative count) for MetricSet::AddHistogram.
  [[nodiscard]] std::vector<std::pair<double, std::uint64_t>> Cumulative()
      const;
  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] double sum() const { return sum_; }
  [[nodiscard]] const std::vector<double>& bounds() const { return bounds_; }
  // Value below which `q` (0..1) of the observations fall, interpolated
  // linearly inside the bucket as histogram_quantile() does. NaN if empty.
  [[nodiscard]] double Quantile(double q) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, last one is +Inf
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

// 0.5 us .. 100 ms in a 1-2-3-5 pattern (22 buckets): dense where RDMA
// latencies live (1-100 us), still covering a stalled or emulated path.
[[nodiscard]] const std::vector<double>& LatencyBuckets();
// 1 us .. 10 s in a 1-2-5 pattern, for memory registration of up to GiBs.
[[nodiscard]] const std::vector<double>& MrBuckets();

}  // namespace rnic::probe
