// When the probes start their rounds: on average once per `interval`, each
// gap drawn uniformly from [interval/2, 3*interval/2). A strictly periodic
// probe holds a fixed phase against other periodic work on the host
// (Prometheus' scrapes, the other probe's rounds, a peer's rounds): its
// samples then always or never meet that work, and the histogram shows the
// phase, not the path. Random gaps sample every phase alike (RFC 2330,
// 11.1) at the same mean rate.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace rnic::probe {

class RoundSchedule {
 public:
  // A seed from std::random_device: hosts started together drift apart.
  explicit RoundSchedule(std::chrono::nanoseconds interval);
  RoundSchedule(std::chrono::nanoseconds interval, std::uint64_t seed);

  // The time from one round's start to the next one's.
  [[nodiscard]] std::chrono::nanoseconds NextGap();

 private:
  std::chrono::nanoseconds interval_;
  std::mt19937_64 rng_;
};

}  // namespace rnic::probe
