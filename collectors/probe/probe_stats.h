// What the probe threads accumulate and the collector snapshots. Every
// method takes the one mutex; the probe thread commits a whole batch of
// samples per call so the lock is taken a few times per round, never inside
// a timed loop.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>

#include "collectors/common/metric_set.h"
#include "collectors/probe/histogram.h"
#include "collectors/probe/probe_config.h"

namespace rnic::probe {

// "transport retry counter exceeded" -> "transport_retry_counter_exceeded".
[[nodiscard]] std::string SnakeCase(std::string_view text);
// Label value for an ibv_wc_status, derived from ibv_wc_status_str().
[[nodiscard]] std::string WcStatusName(int status);
// Label value for an ibv_event_type ("cq_err", "port_active", ...).
[[nodiscard]] std::string AsyncEventName(int event_type);
// True for the ibv_event_types that carry a port number.
[[nodiscard]] bool IsPortEvent(int event_type);

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

  // Appends every family to `out` (the collector calls this at scrape time).
  void AppendTo(MetricSet& out) const;

  // For tests and the standalone tool.
  [[nodiscard]] std::optional<Histogram> LatencyHistogram(
      const std::string& dev, int port, Operation op, std::uint32_t size) const;
  [[nodiscard]] std::uint64_t Rounds(const std::string& dev, int port,
                                     bool ok) const;
  [[nodiscard]] std::uint64_t AsyncEvents(const std::string& dev, int port,
                                          const std::string& event) const;
  [[nodiscard]] double CpuSeconds() const;
  [[nodiscard]] double BudgetDelaySeconds() const;
  [[nodiscard]] std::uint64_t TotalIterations() const;

 private:
  using PortKey = std::tuple<std::string, int>;
  using OpKey = std::tuple<std::string, int, std::string, std::uint32_t>;
  struct OpSeries {
    Histogram latency{LatencyBuckets()};
    std::uint64_t iterations = 0;
    std::uint64_t timeouts = 0;
  };
  struct PortState {
    std::uint64_t rounds_ok = 0;
    std::uint64_t rounds_failed = 0;
    std::uint64_t rebuilds = 0;
    std::optional<bool> last_ok;
    std::optional<bool> qp_counter_bound;
    std::map<std::string, std::uint64_t> qp_counters;
    std::map<std::string, bool> op_supported;
    std::map<std::pair<std::string, std::string>, std::uint64_t> errors;
  };
  struct MrSeries {
    Histogram reg{MrBuckets()};
    Histogram dereg{MrBuckets()};
  };

  PortState& Port(const std::string& dev, int port);

  mutable std::mutex mu_;
  std::map<OpKey, OpSeries> ops_;
  std::map<PortKey, PortState> ports_;
  std::map<std::tuple<std::string, std::uint64_t>, MrSeries> mr_;
  std::map<std::tuple<std::string, int, std::string>, std::uint64_t> events_;
  double cpu_seconds_ = 0;
  double cpu_budget_ = 0;
  double budget_delay_seconds_ = 0;
};

}  // namespace rnic::probe
