// Histogram buckets of RDMA operation latency, the same for the probe and
// the fabric probe so that their series compare bucket by bucket.
#pragma once

#include <vector>

namespace rnic::probe {

// 0.5 us .. 100 ms in a 1-1.5-2-3-5-7 pattern (33 buckets): no bucket wider
// than 1.7x, so histogram_quantile() reads a median within about a quarter of
// the samples' (a 1-2-3-5 pattern put a 12 ms median at 15 ms); dense where
// RDMA latencies live (1-100 us), still covering a stalled or emulated path.
[[nodiscard]] const std::vector<double>& LatencyBuckets();
// A 1-2-5 series from 1 us to 100 ms (16 buckets): the fabric probe's
// per-group histograms of a partial mesh, where series count per host
// matters more than a median's precision.
[[nodiscard]] const std::vector<double>& CoarseLatencyBuckets();

}  // namespace rnic::probe
