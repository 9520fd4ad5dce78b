#include "exporter/scrape_timeout.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace rnic {

std::optional<double> ParseSeconds(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  double v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

double ScrapeDeadlineSeconds(std::string_view header, double default_seconds,
                             double offset_seconds) {
  double t = default_seconds;
  if (auto h = ParseSeconds(header); h && *h > 0) t = *h;
  t = std::min(t, kMaxTimeoutSeconds);
  const double d = t - offset_seconds;
  return d < t / 2 ? t / 2 : d;
}

}  // namespace rnic
