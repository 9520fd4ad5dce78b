// CollectorRunner: runs every enabled collector for one scrape under a
// deadline. A collector that fails or is still running at the deadline is
// reported as rnic_scrape_collector_success 0 and its families are left out;
// the others are served.
//
// A scrape's collectors run one after another on one pooled thread: one
// wake-up per scrape, not one per collector (each is a futex round trip and,
// on an idle vCPU, an IPI: about a tenth of a default scrape in the VM). When
// a collector is still running after `parallel_after` (at most a quarter of
// the scrape's time), another pooled thread takes the collectors not yet
// begun, so a slow or hung one never holds the others past the deadline.
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
#include "collectors/metrics/metric_set.h"

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
  static constexpr std::chrono::milliseconds kParallelAfter{250};

  explicit CollectorRunner(
      std::vector<Entry> entries, std::function<void()> before_scrape = nullptr,
      std::chrono::milliseconds parallel_after = kParallelAfter);
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

  // Threads the pool has started so far (for tests and benchmarks).
  [[nodiscard]] std::size_t PoolThreads() const;

 private:
  struct Shared;  // the collectors, their queues and the thread pool
  // Asks the pool for one pass over every collector's queue.
  // A rescue pass is asked for while a thread is held up in a collector.
  static void PostPass(const std::shared_ptr<Shared>& shared, bool rescue);
  static void PoolThread(const std::shared_ptr<Shared>& shared);
  std::shared_ptr<Shared> shared_;
  std::function<void()> before_scrape_;
  std::mutex before_scrape_mu_;
  const std::chrono::milliseconds parallel_after_;
};

}  // namespace rnic
