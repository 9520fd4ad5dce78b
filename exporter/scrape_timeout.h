// Seconds as --web.default-timeout, --web.timeout-offset and the scraper's
// X-Prometheus-Scrape-Timeout-Seconds give them. Each ends up in a
// steady_clock deadline, and converting nan, inf or 1e300 seconds to clock
// ticks is undefined behaviour: the flags refuse such values, the header
// falls back to the default and is capped.
#pragma once

#include <optional>
#include <string_view>

namespace rnic {

// An hour: far above any scrape timeout, far below any clock overflow.
inline constexpr double kMaxTimeoutSeconds = 3600;
// A millisecond: the resolution of every duration in the config file.
inline constexpr double kMinTimeoutSeconds = 0.001;

// The whole text (surrounding blanks aside) as a finite decimal number;
// nullopt for anything else, "nan" and "inf" included.
[[nodiscard]] std::optional<double> ParseSeconds(std::string_view text);

// The collectors' deadline for one scrape: the header's timeout when it is a
// number > 0 (capped at kMaxTimeoutSeconds), else `default_seconds`; minus
// `offset_seconds`, but never below half the timeout, so the offset cannot
// eat a short timeout whole.
[[nodiscard]] double ScrapeDeadlineSeconds(std::string_view header,
                                           double default_seconds,
                                           double offset_seconds);

}  // namespace rnic
