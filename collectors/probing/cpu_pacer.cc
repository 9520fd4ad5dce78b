#include "collectors/probing/cpu_pacer.h"

#include <time.h>

#include <algorithm>

namespace rnic::probe {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

CpuPacer::CpuPacer(double share, double burst_seconds, double max_wait_seconds)
    : share_(share),
      burst_(std::max(0.0, burst_seconds)),
      max_wait_(std::max(0.0, max_wait_seconds)),
      credit_(std::max(0.0, burst_seconds)) {}

std::chrono::nanoseconds CpuPacer::AfterRound(double wall_seconds,
                                              double cpu_seconds) {
  if (share_ <= 0) return std::chrono::nanoseconds(0);
  credit_ = std::min(burst_, credit_ + share_ * std::max(0.0, wall_seconds));
  credit_ -= std::max(0.0, cpu_seconds);
  if (credit_ >= 0) return std::chrono::nanoseconds(0);
  credit_ = std::max(credit_, -max_wait_ * share_);
  // The wait itself refills the bucket to zero: the next call's
  // wall_seconds includes it.
  return std::chrono::nanoseconds(
      static_cast<long long>(-credit_ / share_ * 1e9));
}

std::chrono::nanoseconds PacedGap(std::chrono::nanoseconds interval,
                                  double cpu_seconds, double share) {
  if (share <= 0 || cpu_seconds <= 0) return interval;
  const auto paced = std::chrono::nanoseconds(
      static_cast<long long>(cpu_seconds / share * 1e9));
  return std::max(interval, paced);
}

}  // namespace rnic::probe
