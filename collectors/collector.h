// The interface every collector implements. The registry (exporter/) times
// each Collect() call, runs collectors in parallel under the scrape deadline
// and reports rnic_scrape_collector_{success,duration_seconds}.
#pragma once

#include <chrono>
#include <string_view>

#include "collectors/common/metric_set.h"
#include "collectors/common/result.h"

namespace rnic {

struct ScrapeContext {
  std::chrono::steady_clock::time_point deadline;
  [[nodiscard]] bool Expired() const {
    return std::chrono::steady_clock::now() >= deadline;
  }
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
