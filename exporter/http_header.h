// The list headers a scraper sends (Accept, Accept-Encoding): comma-separated
// items, each a value with ";name=value" parameters. One parser for both, so
// a quality value means the same in each.
#pragma once

#include <string_view>

namespace rnic {

// ASCII case-insensitive equality (media types, codings, parameter names).
[[nodiscard]] bool IEquals(std::string_view a, std::string_view b);

struct HeaderItem {
  std::string_view value;    // "text/plain", "gzip", ...
  double q = 1.0;            // the "q" parameter; 0 when it is not a number
  std::string_view version;  // the "version" parameter, "" when absent
};

// Calls fn(const HeaderItem&) for every item of `header`, in order.
template <typename Fn>
void ForEachHeaderItem(std::string_view header, Fn&& fn);

// One item of a list header, trimmed: "text/plain;q=0.5".
[[nodiscard]] HeaderItem ParseHeaderItem(std::string_view item);

template <typename Fn>
void ForEachHeaderItem(std::string_view header, Fn&& fn) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    const std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view()
                                             : header.substr(comma + 1);
    fn(ParseHeaderItem(item));
  }
}

}  // namespace rnic
