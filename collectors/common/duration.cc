#include "collectors/common/duration.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>

namespace rnic {

namespace {

constexpr const char* kDurationForm =
    "not a duration (e.g. 30s, 5m, 1h30m; units ms, s, m, h, d, w, y)";

struct Unit {
  std::string_view suffix;
  std::int64_t ms;
};
// Largest first: a duration names them in this order.
constexpr std::array<Unit, 7> kUnits = {{
    {"y", 365LL * 24 * 3600 * 1000},
    {"w", 7LL * 24 * 3600 * 1000},
    {"d", 24LL * 3600 * 1000},
    {"h", 3600LL * 1000},
    {"m", 60LL * 1000},
    {"s", 1000},
    {"ms", 1},
}};

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  if (text == "0") return std::chrono::milliseconds(0);
  if (text.empty()) return Error{kDurationForm};
  std::int64_t total = 0;
  std::size_t next_unit = 0;  // units must appear largest first, once each
  std::size_t i = 0;
  while (i < text.size()) {
    std::int64_t n = 0;
    auto [p, ec] =
        std::from_chars(text.data() + i, text.data() + text.size(), n);
    if (ec != std::errc() || text[i] == '-' || text[i] == '+') {
      return Error{kDurationForm};
    }
    i = static_cast<std::size_t>(p - text.data());
    std::size_t u = kUnits.size();
    for (std::size_t k = next_unit; k < kUnits.size(); ++k) {
      const auto suffix = kUnits[k].suffix;
      if (text.substr(i, suffix.size()) != suffix) continue;
      // "ms" also starts with "m": take "m" only when no 's' follows.
      if (suffix == "m" && text.substr(i, 2) == "ms") continue;
      u = k;
      break;
    }
    if (u == kUnits.size()) return Error{kDurationForm};
    if (n > std::numeric_limits<std::int64_t>::max() / kUnits[u].ms ||
        total > std::numeric_limits<std::int64_t>::max() - n * kUnits[u].ms) {
      return Error{"duration out of range"};
    }
    total += n * kUnits[u].ms;
    i += kUnits[u].suffix.size();
    next_unit = u + 1;
  }
  return std::chrono::milliseconds(total);
}

}  // namespace rnic
