#include "collectors/probe/probe_stats.h"

#include <infiniband/verbs.h>

#include <cctype>

namespace rnic::probe {
namespace {

constexpr const char* kLatencyHelp =
    "Latency of the probe's own RDMA operations on a loopback RC QP pair: "
    "SEND and WRITE are half a ping-pong round trip (as perftest reports "
    "them), READ and atomics the whole operation.";

Label L(const char* name, std::string value) {
  return Label{name, std::move(value)};
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

ProbeStats::ProbeStats() = default;

ProbeStats::PortState& ProbeStats::Port(const std::string& dev, int port) {
  return ports_[PortKey{dev, port}];
}

void ProbeStats::RecordLatencies(const std::string& dev, int port, Operation op,
                                 std::uint32_t size,
                                 std::span<const double> seconds) {
  std::lock_guard lock(mu_);
  auto& s = ops_[OpKey{dev, port, OperationName(op), size}];
  for (double v : seconds) s.latency.Observe(v);
  s.iterations += seconds.size();
  Port(dev, port);
}

void ProbeStats::RecordTimeout(const std::string& dev, int port, Operation op,
                               std::uint32_t size) {
  std::lock_guard lock(mu_);
  ++ops_[OpKey{dev, port, OperationName(op), size}].timeouts;
}

void ProbeStats::RecordCompletionError(const std::string& dev, int port,
                                       Operation op,
                                       const std::string& status) {
  std::lock_guard lock(mu_);
  ++Port(dev, port).errors[{OperationName(op), status}];
}

void ProbeStats::RecordRound(const std::string& dev, int port, bool ok) {
  std::lock_guard lock(mu_);
  auto& p = Port(dev, port);
  ++(ok ? p.rounds_ok : p.rounds_failed);
  p.last_ok = ok;
}

void ProbeStats::RecordRebuild(const std::string& dev, int port) {
  std::lock_guard lock(mu_);
  ++Port(dev, port).rebuilds;
}

void ProbeStats::SetOperationSupported(const std::string& dev, int port,
                                       Operation op, bool supported) {
  std::lock_guard lock(mu_);
  Port(dev, port).op_supported[OperationName(op)] = supported;
}

void ProbeStats::RecordMr(const std::string& dev, std::uint64_t size,
                          double reg_seconds, double dereg_seconds) {
  std::lock_guard lock(mu_);
  auto& s = mr_[{dev, size}];
  s.reg.Observe(reg_seconds);
  s.dereg.Observe(dereg_seconds);
}

void ProbeStats::RecordAsyncEvent(const std::string& dev, int port,
                                  const std::string& event) {
  std::lock_guard lock(mu_);
  ++events_[{dev, port, event}];
}

void ProbeStats::AddCpuSeconds(double seconds) {
  std::lock_guard lock(mu_);
  cpu_seconds_ += seconds;
}

void ProbeStats::SetCpuBudget(double share) {
  std::lock_guard lock(mu_);
  cpu_budget_ = share;
}

void ProbeStats::AddBudgetDelay(double seconds) {
  std::lock_guard lock(mu_);
  budget_delay_seconds_ += seconds;
}

void ProbeStats::SetQpCounterBound(const std::string& dev, int port,
                                   bool bound) {
  std::lock_guard lock(mu_);
  Port(dev, port).qp_counter_bound = bound;
}

void ProbeStats::SetQpCounterValues(
    const std::string& dev, int port,
    const std::map<std::string, std::uint64_t>& values) {
  std::lock_guard lock(mu_);
  Port(dev, port).qp_counters = values;
}

void ProbeStats::AppendTo(MetricSet& out) const {
  std::lock_guard lock(mu_);
  for (const auto& [k, s] : ops_) {
    const auto& [dev, port, op, size] = k;
    Labels labels = {L("device", dev), L("port", std::to_string(port)),
                     L("operation", op), L("size_bytes", std::to_string(size))};
    if (s.latency.count() > 0) {
      out.AddHistogram("rnic_probe_latency_seconds", kLatencyHelp, labels,
                       s.latency.Cumulative(), s.latency.count(),
                       s.latency.sum());
    }
    out.AddCounter("rnic_probe_iterations_total",
                   "Timed probe operations that completed.", labels,
                   static_cast<double>(s.iterations));
    out.AddCounter("rnic_probe_timeouts_total",
                   "Probe operations that did not complete within the "
                   "per-operation timeout.",
                   labels, static_cast<double>(s.timeouts));
  }
  for (const auto& [k, p] : ports_) {
    const auto& [dev, port] = k;
    const std::string port_s = std::to_string(port);
    if (p.last_ok) {
      out.AddGauge("rnic_probe_success",
                   "1 if the last probe round on this port completed every "
                   "operation, else 0.",
                   {L("device", dev), L("port", port_s)}, *p.last_ok ? 1 : 0);
    }
    for (auto [result, n] :
         {std::pair{"ok", p.rounds_ok}, std::pair{"failed", p.rounds_failed}}) {
      out.AddCounter("rnic_probe_rounds_total",
                     "Probe rounds on this port by result (a round fails on "
                     "a timeout, a completion error, a setup error or a "
                     "port that is not active).",
                     {L("device", dev), L("port", port_s), L("result", result)},
                     static_cast<double>(n));
    }
    out.AddCounter("rnic_probe_rebuilds_total",
                   "Times the probe tore down and rebuilt its verbs "
                   "resources on this port.",
                   {L("device", dev), L("port", port_s)},
                   static_cast<double>(p.rebuilds));
    std::uint64_t retry = 0, rnr = 0;
    for (const auto& [ek, n] : p.errors) {
      out.AddCounter("rnic_probe_completion_errors_total",
                     "Probe work completions with an error status, by "
                     "operation and ibv_wc_status_str() in snake_case.",
                     {L("device", dev), L("port", port_s),
                      L("operation", ek.first), L("status", ek.second)},
                     static_cast<double>(n));
      if (ek.second == WcStatusName(IBV_WC_RETRY_EXC_ERR)) retry += n;
      if (ek.second == WcStatusName(IBV_WC_RNR_RETRY_EXC_ERR)) rnr += n;
    }
    // Always present (0 until it happens): the transport-level signals an
    // alert wants to rate() even where no per-QP counter exists.
    out.AddCounter("rnic_probe_retry_exceeded_total",
                   "Probe completions with IBV_WC_RETRY_EXC_ERR (transport "
                   "retry counter exceeded).",
                   {L("device", dev), L("port", port_s)},
                   static_cast<double>(retry));
    out.AddCounter("rnic_probe_rnr_retry_exceeded_total",
                   "Probe completions with IBV_WC_RNR_RETRY_EXC_ERR (RNR "
                   "retry counter exceeded).",
                   {L("device", dev), L("port", port_s)},
                   static_cast<double>(rnr));
    for (const auto& [op, sup] : p.op_supported) {
      out.AddGauge("rnic_probe_operation_supported",
                   "1 if the probe runs this operation on this port, 0 if "
                   "the device lacks the capability (e.g. atomics).",
                   {L("device", dev), L("port", port_s), L("operation", op)},
                   sup ? 1 : 0);
    }
    if (p.qp_counter_bound) {
      out.AddGauge("rnic_probe_qp_stat_bound",
                   "1 if the probe's QPs are bound to their own RDMA "
                   "counter (netlink STAT_SET manual mode), 0 if the kernel "
                   "or driver does not allow it (e.g. rxe).",
                   {L("device", dev), L("port", port_s)},
                   *p.qp_counter_bound ? 1 : 0);
    }
    for (const auto& [name, v] : p.qp_counters) {
      out.AddCounter("rnic_probe_qp_" + SnakeCase(name) + "_total",
                     "Driver counter '" + name +
                         "' of the RDMA counter bound to the probe's own QPs "
                         "(summed across rebinds).",
                     {L("device", dev), L("port", port_s)},
                     static_cast<double>(v));
    }
  }
  for (const auto& [k, s] : mr_) {
    const auto& [dev, size] = k;
    Labels labels = {L("device", dev), L("size_bytes", std::to_string(size))};
    out.AddHistogram("rnic_probe_mr_registration_seconds",
                     "Time of ibv_reg_mr() on an already populated buffer of "
                     "size_bytes.",
                     labels, s.reg.Cumulative(), s.reg.count(), s.reg.sum());
    out.AddHistogram("rnic_probe_mr_deregistration_seconds",
                     "Time of ibv_dereg_mr() of a buffer of size_bytes.",
                     labels, s.dereg.Cumulative(), s.dereg.count(),
                     s.dereg.sum());
  }
  for (const auto& [k, n] : events_) {
    const auto& [dev, port, event] = k;
    Labels labels = {L("device", dev)};
    if (port > 0) labels.push_back(L("port", std::to_string(port)));
    labels.push_back(L("event", event));
    out.AddCounter("rnic_async_events_total",
                   "ibv_async_events seen on the probe's device contexts, by "
                   "type (cq_err is a CQ overrun). Device-level events have "
                   "no port label.",
                   std::move(labels), static_cast<double>(n));
  }
  out.AddCounter("rnic_probe_cpu_seconds_total",
                 "CPU time used by the probe threads "
                 "(CLOCK_THREAD_CPUTIME_ID); divide its rate by the rate of "
                 "rnic_probe_iterations_total for the cost per operation.",
                 {}, cpu_seconds_);
  out.AddGauge("rnic_probe_cpu_budget_ratio",
               "Share of one core the probe threads may use on average "
               "(probe.cpu_budget_percent / 100; 0: no limit).",
               {}, cpu_budget_);
  out.AddCounter("rnic_probe_budget_delay_seconds_total",
                 "Time the probe's rounds were held back beyond "
                 "probe.interval to keep within the CPU budget; a rising "
                 "rate means this device makes probing dear (or the host "
                 "is slow) and rounds come less often.",
                 {}, budget_delay_seconds_);
}

std::optional<Histogram> ProbeStats::LatencyHistogram(
    const std::string& dev, int port, Operation op, std::uint32_t size) const {
  std::lock_guard lock(mu_);
  auto it = ops_.find(OpKey{dev, port, OperationName(op), size});
  if (it == ops_.end()) return std::nullopt;
  return it->second.latency;
}

std::uint64_t ProbeStats::Rounds(const std::string& dev, int port,
                                 bool ok) const {
  std::lock_guard lock(mu_);
  auto it = ports_.find(PortKey{dev, port});
  if (it == ports_.end()) return 0;
  return ok ? it->second.rounds_ok : it->second.rounds_failed;
}

std::uint64_t ProbeStats::AsyncEvents(const std::string& dev, int port,
                                      const std::string& event) const {
  std::lock_guard lock(mu_);
  auto it = events_.find({dev, port, event});
  return it == events_.end() ? 0 : it->second;
}

double ProbeStats::CpuSeconds() const {
  std::lock_guard lock(mu_);
  return cpu_seconds_;
}

double ProbeStats::BudgetDelaySeconds() const {
  std::lock_guard lock(mu_);
  return budget_delay_seconds_;
}

std::uint64_t ProbeStats::TotalIterations() const {
  std::lock_guard lock(mu_);
  std::uint64_t n = 0;
  for (const auto& [k, s] : ops_) n += s.iterations;
  return n;
}

}  // namespace rnic::probe
