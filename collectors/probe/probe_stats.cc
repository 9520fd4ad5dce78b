#include "collectors/probe/probe_stats.h"

#include <infiniband/verbs.h>

#include <iterator>

#include "collectors/metrics/registry_snapshot.h"
#include "collectors/probe/probe_families.h"

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
  auto collected = registry_->Collect();
  // The driver counters of the probe's own RDMA counter are named at run
  // time: declared here, from their template.
  std::vector<const FamilyDesc*> declared(std::begin(families::kAll),
                                          std::end(families::kAll));
  for (const auto& f : collected) {
    bool known = false;
    for (const FamilyDesc* d : families::kAll)
      known = known || d->name == f.name;
    if (!known) {
      declared.push_back(
          &InternFamily(f.name, f.type, families::kQpCounter.labels, f.help));
    }
  }
  AppendCollected(std::move(collected), out, declared);
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
