// Collector `probe` (default disabled: it sends RDMA traffic and moves the
// port counters operators watch; enable with --collector.probe). It starts
// the ProbeEngine and, at scrape time, snapshots what the engine has
// accumulated.
#pragma once

#include <memory>

#include "collectors/collector.h"
#include "collectors/collector_spec.h"
#include "collectors/probe/probe_engine.h"
#include "collectors/probe/probe_stats.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeProbeCollectorSpec();

namespace probe {

class ProbeCollector : public Collector {
 public:
  // `engine` may be null (probe.enabled: false): then only the metrics
  // that exist without traffic are exported, i.e. none.
  ProbeCollector(std::shared_ptr<ProbeStats> stats,
                 std::unique_ptr<ProbeEngine> engine);
  ~ProbeCollector() override;
  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

 private:
  std::shared_ptr<ProbeStats> stats_;
  std::unique_ptr<ProbeEngine> engine_;
};

// The collector for a parsed `probe:` section; `port_built` is handed to the
// engine (the shipped factory passes none).
[[nodiscard]] std::unique_ptr<Collector> MakeProbeCollector(
    const ProbeConfig& cfg, PortBuiltHook port_built = nullptr);

}  // namespace probe
}  // namespace rnic
