#include "exporter/heap_trim.h"

#include <malloc.h>

namespace rnic {

bool HeapTrimmer::MaybeTrim(Clock::time_point now) {
  const Clock::rep t = now.time_since_epoch().count();
  Clock::rep last = last_.load();
  if (last != kNever && t - last < period_.count()) return false;
  if (!last_.compare_exchange_strong(last, t)) return false;  // lost a race
  malloc_trim(0);
  return true;
}

}  // namespace rnic
