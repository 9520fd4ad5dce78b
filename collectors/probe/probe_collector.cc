#include "collectors/probe/probe_collector.h"

#include <spdlog/spdlog.h>

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
  spec.metrics = {
      {"rnic_probe_latency_seconds", "histogram",
       "device,port,operation,size_bytes",
       "Latency of the probe's RDMA operations (SEND/WRITE: half a "
       "ping-pong; READ/atomics: whole operation)."},
      {"rnic_probe_iterations_total", "counter",
       "device,port,operation,size_bytes", "Timed probe operations completed."},
      {"rnic_probe_timeouts_total", "counter",
       "device,port,operation,size_bytes",
       "Probe operations that did not complete within the timeout."},
      {"rnic_probe_completion_errors_total", "counter",
       "device,port,operation,status",
       "Probe completions with an error status (ibv_wc_status_str, "
       "snake_case)."},
      {"rnic_probe_retry_exceeded_total", "counter", "device,port",
       "Probe completions with transport retry counter exceeded."},
      {"rnic_probe_rnr_retry_exceeded_total", "counter", "device,port",
       "Probe completions with RNR retry counter exceeded."},
      {"rnic_probe_success", "gauge", "device,port",
       "1 if the last probe round on the port completed every operation."},
      {"rnic_probe_rounds_total", "counter", "device,port,result",
       "Probe rounds per port by result (ok, failed)."},
      {"rnic_probe_rebuilds_total", "counter", "device,port",
       "Teardowns and rebuilds of the probe's verbs resources."},
      {"rnic_probe_operation_supported", "gauge", "device,port,operation",
       "1 if the operation is probed, 0 if the device lacks it."},
      {"rnic_probe_mr_registration_seconds", "histogram", "device,size_bytes",
       "Time of ibv_reg_mr() per buffer size."},
      {"rnic_probe_mr_deregistration_seconds", "histogram", "device,size_bytes",
       "Time of ibv_dereg_mr() per buffer size."},
      {"rnic_probe_cpu_seconds_total", "counter", "",
       "CPU time of the probe threads."},
      {"rnic_probe_cpu_budget_ratio", "gauge", "",
       "Share of one core the probe may use on average (0: no limit)."},
      {"rnic_probe_budget_delay_seconds_total", "counter", "",
       "Time rounds were held back beyond the interval by the CPU budget."},
      {"rnic_async_events_total", "counter", "device,port,event",
       "ibv_async_events on the probe's device contexts by type "
       "(device-level events have no port label)."},
      {"rnic_probe_qp_stat_bound", "gauge", "device,port",
       "1 if the probe QPs are bound to their own RDMA counter."},
      {"rnic_probe_qp_<counter>_total", "counter", "device,port",
       "Driver counters of the RDMA counter bound to the probe QPs."},
  };
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto cfg = probe::ParseProbeConfig(args.config);
    if (!cfg) return cfg.error();
    auto stats = std::make_shared<probe::ProbeStats>();
    std::unique_ptr<probe::ProbeEngine> engine;
    if (cfg->enabled) {
      engine = std::make_unique<probe::ProbeEngine>(*cfg, stats);
    } else {
      spdlog::info("probe: disabled by probe.enabled: false");
    }
    return std::unique_ptr<Collector>(
        std::make_unique<probe::ProbeCollector>(stats, std::move(engine)));
  };
  return spec;
}

}  // namespace rnic
