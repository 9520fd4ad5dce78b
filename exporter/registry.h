// CollectorRunner: runs every enabled collector in parallel for one scrape
// under a deadline. A collector that fails or is still running at the
// deadline is reported as rnic_scrape_collector_success 0 and its families
// are left out; the others are served.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/common/metric_set.h"

namespace rnic {

class CollectorRunner {
 public:
  struct Entry {
    std::string name;
    std::unique_ptr<Collector> collector;
  };

  // `before_scrape` runs once at the start of every Gather(), before any
  // collector: the exporter refreshes the host model there, so collectors
  // running in parallel all read one snapshot.
  explicit CollectorRunner(std::vector<Entry> entries,
                           std::function<void()> before_scrape = nullptr);
  ~CollectorRunner();
  CollectorRunner(const CollectorRunner&) = delete;
  CollectorRunner& operator=(const CollectorRunner&) = delete;

  // Collects from every collector; the result also holds
  // rnic_scrape_collector_{success,duration_seconds}.
  [[nodiscard]] MetricSet Gather(
      std::chrono::steady_clock::time_point deadline);

  // Waits (bounded) for collector work that outlived its scrape.
  void Drain(std::chrono::milliseconds max_wait);

  [[nodiscard]] std::vector<std::string> Names() const;

 private:
  struct Slot;  // one collector, its worker thread and queue, its name
  static void Work(const std::shared_ptr<Slot>& slot,
                   const std::shared_ptr<std::atomic<int>>& pending);
  std::vector<std::shared_ptr<Slot>> slots_;
  std::function<void()> before_scrape_;
  std::mutex before_scrape_mu_;
  // Tasks queued or running (some may have outlived their scrape).
  std::shared_ptr<std::atomic<int>> running_ =
      std::make_shared<std::atomic<int>>(0);
};

}  // namespace rnic
