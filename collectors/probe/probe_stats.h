// What the probe threads accumulate and the collector snapshots: long-lived
// prometheus-cpp instruments (Family/Counter/Gauge/Histogram) in a
// Registry the probe owns. Instruments are thread-safe; the mutex only
// guards the maps that find a series' instrument by key, so after its first
// use a series is updated without building a label map. The probe thread
// commits a whole batch of samples per call, never inside a timed loop.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "collectors/metrics/metric_set.h"
#include "collectors/probe/probe_config.h"
#include "collectors/probing/latency_buckets.h"
#include "collectors/probing/verbs_names.h"

namespace rnic::probe {

// 1 us .. 10 s in a 1-2-5 pattern, for memory registration of up to GiBs.
[[nodiscard]] const std::vector<double>& MrBuckets();

class ProbeStats {
 public:
  ProbeStats();

  // One batch of timed iterations of `op` at `size` bytes.
  void RecordLatencies(const std::string& dev, int port, Operation op,
                       std::uint32_t size, std::span<const double> seconds);
  void RecordTimeout(const std::string& dev, int port, Operation op,
                     std::uint32_t size);
  void RecordCompletionError(const std::string& dev, int port, Operation op,
                             const std::string& status);
  // A round on one port: ok means every operation of it completed.
  void RecordRound(const std::string& dev, int port, bool ok);
  void RecordRebuild(const std::string& dev, int port);
  void SetOperationSupported(const std::string& dev, int port, Operation op,
                             bool supported);
  void RecordMr(const std::string& dev, std::uint64_t size, double reg_seconds,
                double dereg_seconds);
  // port 0: a device-level event (no port label).
  void RecordAsyncEvent(const std::string& dev, int port,
                        const std::string& event);
  void AddCpuSeconds(double seconds);
  // The CPU budget (share of one core, 0: none) and the time rounds were
  // held back beyond the interval to keep within it.
  void SetCpuBudget(double share);
  void AddBudgetDelay(double seconds);
  // Per-QP counter binding state of a port, and the counter values
  // (already made monotonic across rebinds by the caller).
  void SetQpCounterBound(const std::string& dev, int port, bool bound);
  void SetQpCounterValues(const std::string& dev, int port,
                          const std::map<std::string, std::uint64_t>& values);

  // Drops every series of a device that is gone (unregistered or renamed),
  // so a removed device is not served with frozen values. A device that is
  // only rebuilt keeps its series: its counters continue.
  void ForgetDevice(const std::string& dev);

  // Snapshots every family into `out` (the collector calls this at scrape
  // time).
  void AppendTo(MetricSet& out) const;

  // For tests and the standalone tool. nullopt: no such series; a series
  // with timeouts only has an empty histogram.
  [[nodiscard]] std::optional<prometheus::ClientMetric::Histogram>
  LatencyHistogram(const std::string& dev, int port, Operation op,
                   std::uint32_t size) const;
  [[nodiscard]] std::uint64_t Rounds(const std::string& dev, int port,
                                     bool ok) const;
  [[nodiscard]] std::uint64_t AsyncEvents(const std::string& dev, int port,
                                          const std::string& event) const;
  [[nodiscard]] double CpuSeconds() const;
  [[nodiscard]] double BudgetDelaySeconds() const;
  [[nodiscard]] std::uint64_t TotalIterations() const;

 private:
  using Counter = prometheus::Counter;
  using Gauge = prometheus::Gauge;
  using Histogram = prometheus::Histogram;
  using PortKey = std::tuple<std::string, int>;
  using OpKey = std::tuple<std::string, int, std::string, std::uint32_t>;
  struct OpSeries {
    Histogram* latency = nullptr;  // on the first sample
    Counter* iterations = nullptr;
    Counter* timeouts = nullptr;
  };
  struct PortSeries {
    Counter* rounds_ok = nullptr;
    Counter* rounds_failed = nullptr;
    Counter* rebuilds = nullptr;
    Counter* retry_exceeded = nullptr;
    Counter* rnr_retry_exceeded = nullptr;
    Gauge* success = nullptr;
    Gauge* qp_bound = nullptr;
    std::map<std::pair<std::string, std::string>, Counter*> errors;
    std::map<std::string, Gauge*> op_supported;
    std::map<std::string, Counter*> qp_counters;  // by driver counter name
    std::map<std::string, std::uint64_t> qp_last;
  };
  struct MrSeries {
    Histogram* reg = nullptr;
    Histogram* dereg = nullptr;
  };

  // Callers hold mu_.
  PortSeries& Port(const std::string& dev, int port);
  OpSeries& Op(const std::string& dev, int port, Operation op,
               std::uint32_t size);
  prometheus::Family<Counter>& QpCounterFamily(const std::string& name);

  // Declared first: the families below live in it.
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<Histogram>& latency_;
  prometheus::Family<Counter>& iterations_;
  prometheus::Family<Counter>& timeouts_;
  prometheus::Family<Gauge>& success_;
  prometheus::Family<Counter>& rounds_;
  prometheus::Family<Counter>& rebuilds_;
  prometheus::Family<Counter>& errors_;
  prometheus::Family<Counter>& retry_exceeded_;
  prometheus::Family<Counter>& rnr_retry_exceeded_;
  prometheus::Family<Gauge>& op_supported_;
  prometheus::Family<Gauge>& qp_bound_;
  prometheus::Family<Histogram>& mr_reg_;
  prometheus::Family<Histogram>& mr_dereg_;
  prometheus::Family<Counter>& async_events_;
  Counter& cpu_seconds_;
  Gauge& cpu_budget_;
  Counter& budget_delay_;

  mutable std::mutex mu_;
  std::map<OpKey, OpSeries> ops_;
  std::map<PortKey, PortSeries> ports_;
  std::map<std::tuple<std::string, std::uint64_t>, MrSeries> mr_;
  std::map<std::tuple<std::string, int, std::string>, Counter*> events_;
  std::map<std::string, prometheus::Family<Counter>*> qp_families_;
};

}  // namespace rnic::probe
