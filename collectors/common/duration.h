// Durations as Prometheus writes them, for flags and --config.file alike.
#pragma once

#include <chrono>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic {

// Prometheus duration syntax: one or more <integer><unit>, units from
// largest to smallest and each at most once (y w d h m s ms, a year being
// 365 days), e.g. "30s", "5m", "1h30m"; "0" alone is zero.
[[nodiscard]] Result<std::chrono::milliseconds> ParseDuration(
    std::string_view text);

}  // namespace rnic
