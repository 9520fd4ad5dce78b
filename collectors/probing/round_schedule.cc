#include "collectors/probing/round_schedule.h"

namespace rnic::probe {

RoundSchedule::RoundSchedule(std::chrono::nanoseconds interval)
    : RoundSchedule(interval, std::random_device{}()) {}

RoundSchedule::RoundSchedule(std::chrono::nanoseconds interval,
                             std::uint64_t seed)
    : interval_(interval), rng_(seed) {}

std::chrono::nanoseconds RoundSchedule::NextGap() {
  const auto half = interval_.count() / 2;
  if (half <= 0) return interval_;
  // [interval/2, interval/2 + interval): the mean stays `interval`.
  std::uniform_int_distribution<std::chrono::nanoseconds::rep> spread(
      0, interval_.count() - 1);
  return std::chrono::nanoseconds(half + spread(rng_));
}

}  // namespace rnic::probe
