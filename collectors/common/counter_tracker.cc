#include "collectors/common/counter_tracker.h"

namespace rnic {

ExtendedValue ExtendCounter(WrapState& s, std::uint64_t raw, int width_bits) {
  if (width_bits < 64 && raw > CounterMax(width_bits)) s.wide = true;
  const bool narrow = width_bits < 64 && !s.wide;

  ExtendedValue out;
  if (!s.seen) {
    s.seen = true;
    s.offset = 0;
    out.change = CounterChange::kFirst;
  } else if (raw >= s.last_raw) {
    out.change = CounterChange::kSteady;
  } else if (narrow) {
    const std::uint64_t range = std::uint64_t{1} << width_bits;
    // Distance travelled forward if the counter wrapped once.
    const std::uint64_t forward = raw + (range - s.last_raw);
    if (forward < range / 2) {
      s.offset += range;
      out.change = CounterChange::kWrap;
    } else {
      s.offset = 0;
      out.change = CounterChange::kReset;
    }
  } else {
    s.offset = 0;
    out.change = CounterChange::kReset;
  }
  s.last_raw = raw;
  out.value = s.offset + raw;
  return out;
}

}  // namespace rnic
