// The interface every collector implements. The registry (exporter/) times
// each Collect() call, runs collectors under the scrape deadline and reports
// rnic_scrape_collector_{success,duration_seconds}.
#pragma once

#include <time.h>

#include <chrono>
#include <string_view>

#include "collectors/common/result.h"
#include "collectors/metrics/metric_set.h"

namespace rnic {

// steady_clock's time from the kernel's last tick (CLOCK_MONOTONIC_COARSE,
// same epoch, up to one tick behind). For deadlines and re-check timers, which
// are checked per device or port: it never reads the clock hardware, which
// under a hypervisor's emulated HPET is a trap per read.
[[nodiscard]] inline std::chrono::steady_clock::time_point CoarseNow() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::seconds(ts.tv_sec) +
          std::chrono::nanoseconds(ts.tv_nsec)));
}

struct ScrapeContext {
  std::chrono::steady_clock::time_point deadline;
  [[nodiscard]] bool Expired() const { return CoarseNow() >= deadline; }
};

class Collector {
 public:
  virtual ~Collector() = default;
  // Fills `out`. A non-ok Status marks the whole collector failed for this
  // scrape (its families are dropped). A single unreadable value is NOT a
  // failure: skip it, remember it, log it once.
  // Calls are serialized by the registry: implementations may keep state
  // (e.g. wrap tracking) without their own locking.
  [[nodiscard]] virtual Status Collect(const ScrapeContext& ctx,
                                       MetricSet& out) = 0;
};

}  // namespace rnic
