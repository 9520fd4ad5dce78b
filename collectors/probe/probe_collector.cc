#include "collectors/probe/probe_collector.h"

#include <spdlog/spdlog.h>

#include "collectors/common/log_once.h"
#include "collectors/probe/probe_families.h"

namespace rnic {
namespace probe {

ProbeCollector::ProbeCollector(std::shared_ptr<ProbeStats> stats,
                               std::unique_ptr<ProbeEngine> engine)
    : stats_(std::move(stats)), engine_(std::move(engine)) {
  if (engine_) engine_->Start();
}

ProbeCollector::~ProbeCollector() {
  if (engine_) engine_->Stop();
}

Status ProbeCollector::Collect(const ScrapeContext& /*ctx*/, MetricSet& out) {
  stats_->AppendTo(out);
  return Status::Ok();
}

std::unique_ptr<Collector> MakeProbeCollector(const ProbeConfig& cfg,
                                              PortBuiltHook port_built) {
  auto stats = std::make_shared<ProbeStats>();
  std::unique_ptr<ProbeEngine> engine;
  if (cfg.enabled) {
    engine = std::make_unique<ProbeEngine>(cfg, stats, std::move(port_built));
  } else {
    LogEvent(spdlog::level::info, "probe", "disabled by probe.enabled: false",
             {});
  }
  return std::make_unique<ProbeCollector>(stats, std::move(engine));
}

}  // namespace probe

CollectorSpec MakeProbeCollectorSpec() {
  CollectorSpec spec;
  spec.name = "probe";
  spec.help =
      "Active libibverbs probe: loopback RC QP pair per active port, "
      "latency of SEND/WRITE/READ/atomics, MR registration cost, async "
      "events. Sends RDMA traffic (moves port counters), hence opt-in. "
      "Settings: the probe: section of --config.file.";
  spec.default_enabled = false;
  spec.families.assign(std::begin(probe::families::kAll),
                       std::end(probe::families::kAll));
  spec.check_config = CheckWith(probe::ParseProbeConfig);
  spec.config_doc = probe::ProbeConfigDoc();
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto cfg = probe::ParseProbeConfig(args.config);
    if (!cfg) return cfg.error();
    return probe::MakeProbeCollector(*cfg);
  };
  return spec;
}

}  // namespace rnic
