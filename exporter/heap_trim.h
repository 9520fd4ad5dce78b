// Hands memory a scrape freed back to the kernel, at most once per period.
// glibc keeps freed heap pages resident; one malloc_trim() after a scrape
// returns them (about 0.2 MiB on the fixture tree), and the period keeps
// back-to-back scrapes from paying its ~50 us each time.
#pragma once

#include <atomic>
#include <chrono>
#include <limits>

namespace rnic {

class HeapTrimmer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit HeapTrimmer(Clock::duration period) : period_(period) {}

  // Trims if the last trim is at least one period before `now`. Returns
  // whether it trimmed. Safe from several threads: one of them wins.
  bool MaybeTrim(Clock::time_point now = Clock::now());

 private:
  static constexpr Clock::rep kNever = std::numeric_limits<Clock::rep>::min();
  Clock::duration period_;
  std::atomic<Clock::rep> last_{kNever};
};

}  // namespace rnic
