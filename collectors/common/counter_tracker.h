// The project's one counter tracker: per-series state for counters whose raw
// value is narrower than 64 bits. Collectors keep a WrapState next to each
// series' cached metadata (sysfs per counter file, netlink_stat per port
// counter), so the hot path never looks a series up by a string key.
//
// Two kinds of narrow counters exist and need opposite treatment:
//  * wrapping counters (mlx5 Q counters, read as 32 bits) restart at 0 after
//    their maximum: the exporter extends them to a monotonic 64-bit value by
//    remembering the last raw value and adding 2^width on each wrap;
//  * saturating counters (IB PMA PortCounters, 4..32 bits) stop at their
//    maximum until someone resets them: the exporter cannot recover the lost
//    counts, so it reports a saturation signal instead of a flat line.
//
// A decrease of a wrapping counter is a wrap only when it is plausible: the
// modular distance from the last value must be below half the range. A
// larger jump backwards (e.g. a device re-created and counting from 0 again)
// is a reset and is passed through so Prometheus' rate() sees a reset. A
// decrease of a 64-bit counter is always a reset. At most one wrap between
// two scrapes can be detected; a faster counter needs a shorter interval.
#pragma once

#include <cstdint>

namespace rnic {

// Largest raw value a counter of `width_bits` can hold (all ones).
[[nodiscard]] constexpr std::uint64_t CounterMax(int width_bits) {
  return width_bits >= 64 ? ~std::uint64_t{0}
                          : (std::uint64_t{1} << width_bits) - 1;
}

// True when a saturating counter of `width_bits` sits at its maximum. A value
// above the maximum means the width assumption was wrong: not saturated.
[[nodiscard]] constexpr bool IsSaturated(std::uint64_t raw, int width_bits) {
  return width_bits < 64 && raw == CounterMax(width_bits);
}

// What ExtendCounter concluded from one observation.
enum class CounterChange { kFirst, kSteady, kWrap, kReset };

struct WrapState {
  std::uint64_t last_raw = 0;
  std::uint64_t offset = 0;  // added to the raw value
  bool seen = false;
  // A raw value above the declared width was seen: the counter is really
  // 64-bit (e.g. a same-named counter of another driver); stop extending.
  bool wide = false;
};

struct ExtendedValue {
  std::uint64_t value = 0;
  CounterChange change = CounterChange::kFirst;
};

// Feeds one raw reading of a counter that wraps at `width_bits` (1..64).
[[nodiscard]] ExtendedValue ExtendCounter(WrapState& state, std::uint64_t raw,
                                          int width_bits);

}  // namespace rnic
