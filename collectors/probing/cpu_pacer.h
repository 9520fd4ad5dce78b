// Keeps the probe's CPU time within a share of one core on average,
// whatever a round costs on the device at hand: a token bucket of CPU
// seconds that fills at `share` seconds per wall second (capped at
// `burst_seconds`) and that each round drains by what it used. A round
// that leaves the bucket in debt delays the next one until it is repaid,
// but never by more than `max_wait_seconds`: past that the debt is
// forgiven, so the probe never goes blind for long (alerts on
// rnic_probe_success need rounds) and recovers at once when rounds are
// cheap again.
#pragma once

#include <chrono>

namespace rnic::probe {

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), in seconds:
// what every probe thread adds to rnic_probe_cpu_seconds_total.
[[nodiscard]] double ThreadCpuSeconds();

class CpuPacer {
 public:
  // share <= 0: no limit. burst_seconds: CPU a quiet probe may bank.
  CpuPacer(double share, double burst_seconds, double max_wait_seconds);

  // After a round: `wall_seconds` since the previous call (or since the
  // start), `cpu_seconds` used by the probe threads in that time. Returns
  // the least time to wait before the next round may start.
  [[nodiscard]] std::chrono::nanoseconds AfterRound(double wall_seconds,
                                                    double cpu_seconds);

  [[nodiscard]] double share() const { return share_; }
  [[nodiscard]] double credit_seconds() const { return credit_; }

 private:
  double share_;
  double burst_;
  double max_wait_;
  double credit_;
};

// The gap before repeating a job that cost `cpu_seconds`, so that it alone
// uses at most `share` of a core: the longer of `interval` and cost/share.
// share <= 0: `interval`.
[[nodiscard]] std::chrono::nanoseconds PacedGap(
    std::chrono::nanoseconds interval, double cpu_seconds, double share);

// How the budget is split when memory registrations are measured: they are
// rare and heavy (pinning 64 MiB), so they get their own quarter and are
// spaced out by PacedGap, and latency rounds, the probe's main signal,
// keep a steady pace on the rest instead of stalling after each of them.
inline constexpr double kMrBudgetShare = 0.25;

}  // namespace rnic::probe
