#include "exporter/query_string.h"

namespace rnic {
namespace {

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> Decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%') {
      if (i + 2 >= s.size()) return Error{"bad escape in query"};
      const int hi = Hex(s[i + 1]);
      const int lo = Hex(s[i + 2]);
      if (hi < 0 || lo < 0) return Error{"bad escape in query"};
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

Result<std::map<std::string, std::string>> ParseQueryString(
    std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{}
                                          : query.substr(amp + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    auto key = Decode(part.substr(0, eq));
    if (!key) return key.error();
    if (key->empty()) return Error{"empty parameter name in query"};
    auto value = Decode(eq == std::string_view::npos ? std::string_view{}
                                                     : part.substr(eq + 1));
    if (!value) return value.error();
    out[*key] = std::move(*value);
  }
  return out;
}

}  // namespace rnic
