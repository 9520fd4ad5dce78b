// Histogram buckets of RDMA operation latency, the same for the probe and
// the fabric probe so that their series compare bucket by bucket.
#pragma once

#include <vector>

namespace rnic::probe {

// 0.5 us .. 100 ms in a 1-2-3-5 pattern (22 buckets): dense where RDMA
// latencies live (1-100 us), still covering a stalled or emulated path.
[[nodiscard]] const std::vector<double>& LatencyBuckets();

}  // namespace rnic::probe
