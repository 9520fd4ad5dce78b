#include "collectors/netlink/wrap_tracker.h"

namespace rnic::nl {

std::uint64_t WrapTracker::Update(const std::string& key, std::uint64_t raw,
                                  int width) {
  constexpr std::uint64_t kSpan = std::uint64_t{1} << 32;
  if (width != 32 || raw >= kSpan) return raw;  // wider than 32 bits after all
  auto [it, inserted] = series_.try_emplace(key);
  State& s = it->second;
  if (inserted) {
    s.total = raw;
  } else if (raw >= s.last_raw) {
    s.total += raw - s.last_raw;
  } else if (kSpan - s.last_raw + raw < kSpan / 2) {
    s.total += kSpan - s.last_raw + raw;  // wrapped once
  } else {
    // A big step back is a reset (counter re-created), not a wrap: pass it
    // through so rate() sees a reset instead of a 4-billion jump.
    s.total = raw;
  }
  s.last_raw = raw;
  s.seen = true;
  return s.total;
}

void WrapTracker::Sweep() {
  for (auto it = series_.begin(); it != series_.end();) {
    if (!it->second.seen) {
      it = series_.erase(it);
    } else {
      it->second.seen = false;
      ++it;
    }
  }
}

}  // namespace rnic::nl
