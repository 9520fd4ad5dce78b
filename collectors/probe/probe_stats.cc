#include "collectors/probe/probe_stats.h"

#include <infiniband/verbs.h>

#include <cctype>

#include "collectors/probe/probe_families.h"
#include "collectors/probe/registry_snapshot.h"

namespace rnic::probe {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

prometheus::Labels PortLabels(const std::string& dev, int port) {
  return {{"device", dev}, {"port", std::to_string(port)}};
}

std::uint64_t Whole(const prometheus::Counter* c) {
  return c == nullptr ? 0 : static_cast<std::uint64_t>(c->Value());
}

}  // namespace

std::string SnakeCase(std::string_view text) {
  std::string out;
  bool pending_sep = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      if (pending_sep && !out.empty()) out.push_back('_');
      pending_sep = false;
      out.push_back(static_cast<char>(std::tolower(c)));
    } else {
      pending_sep = true;
    }
  }
  return out.empty() ? "unknown" : out;
}

std::string WcStatusName(int status) {
  return SnakeCase(ibv_wc_status_str(static_cast<ibv_wc_status>(status)));
}

std::string AsyncEventName(int event_type) {
  switch (static_cast<ibv_event_type>(event_type)) {
    case IBV_EVENT_CQ_ERR:
      return "cq_err";
    case IBV_EVENT_QP_FATAL:
      return "qp_fatal";
    case IBV_EVENT_QP_REQ_ERR:
      return "qp_req_err";
    case IBV_EVENT_QP_ACCESS_ERR:
      return "qp_access_err";
    case IBV_EVENT_COMM_EST:
      return "comm_est";
    case IBV_EVENT_SQ_DRAINED:
      return "sq_drained";
    case IBV_EVENT_PATH_MIG:
      return "path_mig";
    case IBV_EVENT_PATH_MIG_ERR:
      return "path_mig_err";
    case IBV_EVENT_DEVICE_FATAL:
      return "device_fatal";
    case IBV_EVENT_PORT_ACTIVE:
      return "port_active";
    case IBV_EVENT_PORT_ERR:
      return "port_err";
    case IBV_EVENT_LID_CHANGE:
      return "lid_change";
    case IBV_EVENT_PKEY_CHANGE:
      return "pkey_change";
    case IBV_EVENT_SM_CHANGE:
      return "sm_change";
    case IBV_EVENT_SRQ_ERR:
      return "srq_err";
    case IBV_EVENT_SRQ_LIMIT_REACHED:
      return "srq_limit_reached";
    case IBV_EVENT_QP_LAST_WQE_REACHED:
      return "qp_last_wqe_reached";
    case IBV_EVENT_CLIENT_REREGISTER:
      return "client_reregister";
    case IBV_EVENT_GID_CHANGE:
      return "gid_change";
    case IBV_EVENT_WQ_FATAL:
      return "wq_fatal";
  }
  return "unknown_" + std::to_string(event_type);
}

bool IsPortEvent(int event_type) {
  switch (static_cast<ibv_event_type>(event_type)) {
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
      return true;
    default:
      return false;
  }
}

const std::vector<double>& LatencyBuckets() {
  // Literals, so the exposition prints "3e-06" and not a rounding artefact.
  static const std::vector<double> kBuckets = {
      0.5e-6, 0.7e-6, 1e-6,  1.5e-6, 2e-6,  3e-6,   5e-6,   7e-6,   10e-6,
      15e-6,  20e-6,  30e-6, 50e-6,  70e-6, 100e-6, 150e-6, 200e-6, 300e-6,
      500e-6, 700e-6, 1e-3,  1.5e-3, 2e-3,  3e-3,   5e-3,   7e-3,   10e-3,
      15e-3,  20e-3,  30e-3, 50e-3,  70e-3, 100e-3};
  return kBuckets;
}

const std::vector<double>& MrBuckets() {
  static const std::vector<double> kBuckets = {
      1e-6,   2e-6,   5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6,
      500e-6, 1e-3,   2e-3, 5e-3,  10e-3, 20e-3, 50e-3,  100e-3,
      200e-3, 500e-3, 1,    2,     5,     10};
  return kBuckets;
}

ProbeStats::ProbeStats()
    : registry_(std::make_shared<prometheus::Registry>()),
      latency_(BuildHistogram()
                   .Name(std::string(families::kLatency.name))
                   .Help(std::string(families::kLatency.help))
                   .Register(*registry_)),
      iterations_(BuildCounter()
                      .Name(std::string(families::kIterations.name))
                      .Help(std::string(families::kIterations.help))
                      .Register(*registry_)),
      timeouts_(BuildCounter()
                    .Name(std::string(families::kTimeouts.name))
                    .Help(std::string(families::kTimeouts.help))
                    .Register(*registry_)),
      success_(BuildGauge()
                   .Name(std::string(families::kSuccess.name))
                   .Help(std::string(families::kSuccess.help))
                   .Register(*registry_)),
      rounds_(BuildCounter()
                  .Name(std::string(families::kRounds.name))
                  .Help(std::string(families::kRounds.help))
                  .Register(*registry_)),
      rebuilds_(BuildCounter()
                    .Name(std::string(families::kRebuilds.name))
                    .Help(std::string(families::kRebuilds.help))
                    .Register(*registry_)),
      errors_(BuildCounter()
                  .Name(std::string(families::kCompletionErrors.name))
                  .Help(std::string(families::kCompletionErrors.help))
                  .Register(*registry_)),
      retry_exceeded_(BuildCounter()
                          .Name(std::string(families::kRetryExceeded.name))
                          .Help(std::string(families::kRetryExceeded.help))
                          .Register(*registry_)),
      rnr_retry_exceeded_(
          BuildCounter()
              .Name(std::string(families::kRnrRetryExceeded.name))
              .Help(std::string(families::kRnrRetryExceeded.help))
              .Register(*registry_)),
      op_supported_(BuildGauge()
                        .Name(std::string(families::kOperationSupported.name))
                        .Help(std::string(families::kOperationSupported.help))
                        .Register(*registry_)),
      qp_bound_(BuildGauge()
                    .Name(std::string(families::kQpStatBound.name))
                    .Help(std::string(families::kQpStatBound.help))
                    .Register(*registry_)),
      mr_reg_(BuildHistogram()
                  .Name(std::string(families::kMrRegistration.name))
                  .Help(std::string(families::kMrRegistration.help))
                  .Register(*registry_)),
      mr_dereg_(BuildHistogram()
                    .Name(std::string(families::kMrDeregistration.name))
                    .Help(std::string(families::kMrDeregistration.help))
                    .Register(*registry_)),
      async_events_(BuildCounter()
                        .Name(std::string(families::kAsyncEvents.name))
                        .Help(std::string(families::kAsyncEvents.help))
                        .Register(*registry_)),
      cpu_seconds_(BuildCounter()
                       .Name(std::string(families::kCpuSeconds.name))
                       .Help(std::string(families::kCpuSeconds.help))
                       .Register(*registry_)
                       .Add({})),
      cpu_budget_(BuildGauge()
                      .Name(std::string(families::kCpuBudget.name))
                      .Help(std::string(families::kCpuBudget.help))
                      .Register(*registry_)
                      .Add({})),
      budget_delay_(BuildCounter()
                        .Name(std::string(families::kBudgetDelay.name))
                        .Help(std::string(families::kBudgetDelay.help))
                        .Register(*registry_)
                        .Add({})) {}

ProbeStats::PortSeries& ProbeStats::Port(const std::string& dev, int port) {
  auto [it, fresh] = ports_.try_emplace(PortKey{dev, port});
  PortSeries& p = it->second;
  if (fresh) {
    // Present from the port's first appearance, 0 until something happens:
    // the signals an alert wants to rate().
    const prometheus::Labels l = PortLabels(dev, port);
    auto with = [&](const char* k, const char* v) {
      prometheus::Labels x = l;
      x.emplace(k, v);
      return x;
    };
    p.rounds_ok = &rounds_.Add(with("result", "ok"));
    p.rounds_failed = &rounds_.Add(with("result", "failed"));
    p.rebuilds = &rebuilds_.Add(l);
    p.retry_exceeded = &retry_exceeded_.Add(l);
    p.rnr_retry_exceeded = &rnr_retry_exceeded_.Add(l);
  }
  return p;
}

ProbeStats::OpSeries& ProbeStats::Op(const std::string& dev, int port,
                                     Operation op, std::uint32_t size) {
  auto [it, fresh] =
      ops_.try_emplace(OpKey{dev, port, OperationName(op), size});
  OpSeries& s = it->second;
  if (fresh) {
    prometheus::Labels l = PortLabels(dev, port);
    l.emplace("operation", OperationName(op));
    l.emplace("size_bytes", std::to_string(size));
    s.iterations = &iterations_.Add(l);
    s.timeouts = &timeouts_.Add(l);
  }
  return s;
}

prometheus::Family<prometheus::Counter>& ProbeStats::QpCounterFamily(
    const std::string& name) {
  auto& f = qp_families_[name];
  if (f == nullptr) {
    f = &BuildCounter()
             .Name("rnic_probe_qp_" + MetricNamePart(name) + "_total")
             .Help("Driver counter '" + name +
                   "' of the RDMA counter bound to the probe's own QPs "
                   "(summed across rebinds).")
             .Register(*registry_);
  }
  return *f;
}

void ProbeStats::ForgetDevice(const std::string& dev) {
  std::lock_guard lock(mu_);
  auto drop = [](auto& family, auto* metric) {
    if (metric != nullptr) family.Remove(metric);
  };
  // Every map is keyed by a tuple whose first element is the device.
  auto forget = [&dev](auto& map, auto drop_series) {
    std::erase_if(map, [&](const auto& entry) {
      if (std::get<0>(entry.first) != dev) return false;
      drop_series(entry.second);
      return true;
    });
  };
  forget(ops_, [&](const OpSeries& s) {
    drop(latency_, s.latency);
    drop(iterations_, s.iterations);
    drop(timeouts_, s.timeouts);
  });
  forget(ports_, [&](const PortSeries& p) {
    drop(rounds_, p.rounds_ok);
    drop(rounds_, p.rounds_failed);
    drop(rebuilds_, p.rebuilds);
    drop(retry_exceeded_, p.retry_exceeded);
    drop(rnr_retry_exceeded_, p.rnr_retry_exceeded);
    drop(success_, p.success);
    drop(qp_bound_, p.qp_bound);
    for (auto& [key, c] : p.errors) drop(errors_, c);
    for (auto& [op, g] : p.op_supported) drop(op_supported_, g);
    for (auto& [name, c] : p.qp_counters) drop(*qp_families_.at(name), c);
  });
  forget(mr_, [&](const MrSeries& s) {
    drop(mr_reg_, s.reg);
    drop(mr_dereg_, s.dereg);
  });
  forget(events_, [&](Counter* c) { drop(async_events_, c); });
}

void ProbeStats::RecordLatencies(const std::string& dev, int port, Operation op,
                                 std::uint32_t size,
                                 std::span<const double> seconds) {
  std::lock_guard lock(mu_);
  OpSeries& s = Op(dev, port, op, size);
  Port(dev, port);
  if (seconds.empty()) return;
  if (s.latency == nullptr) {
    prometheus::Labels l = PortLabels(dev, port);
    l.emplace("operation", OperationName(op));
    l.emplace("size_bytes", std::to_string(size));
    s.latency = &latency_.Add(l, LatencyBuckets());
  }
  for (double v : seconds) s.latency->Observe(v);
  s.iterations->Increment(static_cast<double>(seconds.size()));
}

void ProbeStats::RecordTimeout(const std::string& dev, int port, Operation op,
                               std::uint32_t size) {
  std::lock_guard lock(mu_);
  Op(dev, port, op, size).timeouts->Increment();
}

void ProbeStats::RecordCompletionError(const std::string& dev, int port,
                                       Operation op,
                                       const std::string& status) {
  std::lock_guard lock(mu_);
  PortSeries& p = Port(dev, port);
  auto& c = p.errors[{OperationName(op), status}];
  if (c == nullptr) {
    prometheus::Labels l = PortLabels(dev, port);
    l.emplace("operation", OperationName(op));
    l.emplace("status", status);
    c = &errors_.Add(l);
  }
  c->Increment();
  if (status == WcStatusName(IBV_WC_RETRY_EXC_ERR)) {
    p.retry_exceeded->Increment();
  }
  if (status == WcStatusName(IBV_WC_RNR_RETRY_EXC_ERR)) {
    p.rnr_retry_exceeded->Increment();
  }
}

void ProbeStats::RecordRound(const std::string& dev, int port, bool ok) {
  std::lock_guard lock(mu_);
  PortSeries& p = Port(dev, port);
  (ok ? p.rounds_ok : p.rounds_failed)->Increment();
  if (p.success == nullptr) p.success = &success_.Add(PortLabels(dev, port));
  p.success->Set(ok ? 1 : 0);
}

void ProbeStats::RecordRebuild(const std::string& dev, int port) {
  std::lock_guard lock(mu_);
  Port(dev, port).rebuilds->Increment();
}

void ProbeStats::SetOperationSupported(const std::string& dev, int port,
                                       Operation op, bool supported) {
  std::lock_guard lock(mu_);
  auto& g = Port(dev, port).op_supported[OperationName(op)];
  if (g == nullptr) {
    prometheus::Labels l = PortLabels(dev, port);
    l.emplace("operation", OperationName(op));
    g = &op_supported_.Add(l);
  }
  g->Set(supported ? 1 : 0);
}

void ProbeStats::RecordMr(const std::string& dev, std::uint64_t size,
                          double reg_seconds, double dereg_seconds) {
  std::lock_guard lock(mu_);
  MrSeries& s = mr_[{dev, size}];
  if (s.reg == nullptr) {
    const prometheus::Labels l = {{"device", dev},
                                  {"size_bytes", std::to_string(size)}};
    s.reg = &mr_reg_.Add(l, MrBuckets());
    s.dereg = &mr_dereg_.Add(l, MrBuckets());
  }
  s.reg->Observe(reg_seconds);
  s.dereg->Observe(dereg_seconds);
}

void ProbeStats::RecordAsyncEvent(const std::string& dev, int port,
                                  const std::string& event) {
  std::lock_guard lock(mu_);
  auto& c = events_[{dev, port, event}];
  if (c == nullptr) {
    prometheus::Labels l = {{"device", dev}, {"event", event}};
    if (port > 0) l.emplace("port", std::to_string(port));
    c = &async_events_.Add(l);
  }
  c->Increment();
}

void ProbeStats::AddCpuSeconds(double seconds) {
  cpu_seconds_.Increment(seconds);
}

void ProbeStats::SetCpuBudget(double share) { cpu_budget_.Set(share); }

void ProbeStats::AddBudgetDelay(double seconds) {
  budget_delay_.Increment(seconds);
}

void ProbeStats::SetQpCounterBound(const std::string& dev, int port,
                                   bool bound) {
  std::lock_guard lock(mu_);
  PortSeries& p = Port(dev, port);
  if (p.qp_bound == nullptr) p.qp_bound = &qp_bound_.Add(PortLabels(dev, port));
  p.qp_bound->Set(bound ? 1 : 0);
}

void ProbeStats::SetQpCounterValues(
    const std::string& dev, int port,
    const std::map<std::string, std::uint64_t>& values) {
  std::lock_guard lock(mu_);
  PortSeries& p = Port(dev, port);
  for (const auto& [name, v] : values) {
    auto& c = p.qp_counters[name];
    if (c == nullptr) c = &QpCounterFamily(name).Add(PortLabels(dev, port));
    // The caller's values are monotonic; a counter only takes increments.
    auto& last = p.qp_last[name];
    if (v > last) c->Increment(static_cast<double>(v - last));
    last = v;
  }
}

void ProbeStats::AppendTo(MetricSet& out) const {
  AppendCollected(registry_->Collect(), out);
}

std::optional<prometheus::ClientMetric::Histogram> ProbeStats::LatencyHistogram(
    const std::string& dev, int port, Operation op, std::uint32_t size) const {
  std::lock_guard lock(mu_);
  auto it = ops_.find(OpKey{dev, port, OperationName(op), size});
  if (it == ops_.end()) return std::nullopt;
  if (it->second.latency == nullptr)
    return prometheus::ClientMetric::Histogram{};
  return it->second.latency->Collect().histogram;
}

std::uint64_t ProbeStats::Rounds(const std::string& dev, int port,
                                 bool ok) const {
  std::lock_guard lock(mu_);
  auto it = ports_.find(PortKey{dev, port});
  if (it == ports_.end()) return 0;
  return Whole(ok ? it->second.rounds_ok : it->second.rounds_failed);
}

std::uint64_t ProbeStats::AsyncEvents(const std::string& dev, int port,
                                      const std::string& event) const {
  std::lock_guard lock(mu_);
  auto it = events_.find({dev, port, event});
  return it == events_.end() ? 0 : Whole(it->second);
}

double ProbeStats::CpuSeconds() const { return cpu_seconds_.Value(); }

double ProbeStats::BudgetDelaySeconds() const { return budget_delay_.Value(); }

std::uint64_t ProbeStats::TotalIterations() const {
  std::lock_guard lock(mu_);
  std::uint64_t n = 0;
  for (const auto& [k, s] : ops_) n += Whole(s.iterations);
  return n;
}

}  // namespace rnic::probe
