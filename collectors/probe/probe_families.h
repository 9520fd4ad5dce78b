// Families of the probe collector, declared once (collectors/metrics/family.h).
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::probe::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kLatency{
    "rnic_probe_latency_seconds", MetricType::Histogram,
    "device,port,operation,size_bytes",
    "Latency of the probe's own RDMA operations on a loopback RC QP pair: "
    "SEND and WRITE are half a ping-pong round trip (as perftest reports "
    "them), READ and atomics the whole operation."};
inline constexpr FamilyDesc kIterations{
    "rnic_probe_iterations_total", MetricType::Counter,
    "device,port,operation,size_bytes",
    "Timed probe operations that completed."};
inline constexpr FamilyDesc kTimeouts{
    "rnic_probe_timeouts_total", MetricType::Counter,
    "device,port,operation,size_bytes",
    "Probe operations that did not complete within the per-operation "
    "timeout."};
inline constexpr FamilyDesc kSuccess{
    "rnic_probe_success", MetricType::Gauge, "device,port",
    "1 if the last probe round on this port completed every operation, else "
    "0."};
inline constexpr FamilyDesc kRounds{
    "rnic_probe_rounds_total", MetricType::Counter, "device,port,result",
    "Probe rounds on this port by result (a round fails on a timeout, a "
    "completion error, a setup error or a port that is not active)."};
inline constexpr FamilyDesc kRebuilds{
    "rnic_probe_rebuilds_total", MetricType::Counter, "device,port",
    "Times the probe tore down and rebuilt its verbs resources on this "
    "port."};
inline constexpr FamilyDesc kCompletionErrors{
    "rnic_probe_completion_errors_total", MetricType::Counter,
    "device,port,operation,status",
    "Probe work completions with an error status, by operation and "
    "ibv_wc_status_str() in snake_case."};
inline constexpr FamilyDesc kRetryExceeded{
    "rnic_probe_retry_exceeded_total", MetricType::Counter, "device,port",
    "Probe completions with IBV_WC_RETRY_EXC_ERR (transport retry counter "
    "exceeded)."};
inline constexpr FamilyDesc kRnrRetryExceeded{
    "rnic_probe_rnr_retry_exceeded_total", MetricType::Counter, "device,port",
    "Probe completions with IBV_WC_RNR_RETRY_EXC_ERR (RNR retry counter "
    "exceeded)."};
inline constexpr FamilyDesc kOperationSupported{
    "rnic_probe_operation_supported", MetricType::Gauge,
    "device,port,operation",
    "1 if the probe runs this operation on this port, 0 if the device lacks "
    "the capability (e.g. atomics)."};
inline constexpr FamilyDesc kQpStatBound{
    "rnic_probe_qp_stat_bound", MetricType::Gauge, "device,port",
    "1 if the probe's QPs are bound to their own RDMA counter (netlink "
    "STAT_SET manual mode), 0 if the kernel or driver does not allow it "
    "(e.g. rxe)."};
inline constexpr FamilyDesc kQpCounter{
    "rnic_probe_qp_<counter>_total", MetricType::Counter, "device,port",
    "Driver counter <counter> of the RDMA counter bound to the probe's own "
    "QPs (summed across rebinds)."};
inline constexpr FamilyDesc kMrRegistration{
    "rnic_probe_mr_registration_seconds", MetricType::Histogram,
    "device,size_bytes",
    "Time of ibv_reg_mr() on an already populated buffer of size_bytes."};
inline constexpr FamilyDesc kMrDeregistration{
    "rnic_probe_mr_deregistration_seconds", MetricType::Histogram,
    "device,size_bytes", "Time of ibv_dereg_mr() of a buffer of size_bytes."};
inline constexpr FamilyDesc kAsyncEvents{
    "rnic_async_events_total", MetricType::Counter, "device,port,event",
    "ibv_async_events seen on the probe's device contexts, by type (cq_err is "
    "a CQ overrun). Device-level events have no port label."};
inline constexpr FamilyDesc kCpuSeconds{
    "rnic_probe_cpu_seconds_total", MetricType::Counter, "",
    "CPU time used by the probe threads (CLOCK_THREAD_CPUTIME_ID); divide its "
    "rate by the rate of rnic_probe_iterations_total for the cost per "
    "operation."};
inline constexpr FamilyDesc kCpuBudget{
    "rnic_probe_cpu_budget_ratio", MetricType::Gauge, "",
    "Share of one core the probe threads may use on average "
    "(probe.cpu_budget_percent / 100; 0: no limit)."};
inline constexpr FamilyDesc kBudgetDelay{
    "rnic_probe_budget_delay_seconds_total", MetricType::Counter, "",
    "Time the probe's rounds were held back beyond probe.interval to keep "
    "within the CPU budget; a rising rate means this device makes probing "
    "dear (or the host is slow) and rounds come less often."};

inline constexpr const FamilyDesc* kAll[] = {
    &kLatency,       &kIterations,         &kTimeouts,       &kCompletionErrors,
    &kRetryExceeded, &kRnrRetryExceeded,   &kSuccess,        &kRounds,
    &kRebuilds,      &kOperationSupported, &kMrRegistration, &kMrDeregistration,
    &kCpuSeconds,    &kCpuBudget,          &kBudgetDelay,    &kAsyncEvents,
    &kQpStatBound,   &kQpCounter};

}  // namespace rnic::probe::families
