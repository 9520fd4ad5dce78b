#include "exporter/http_header.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace rnic {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

HeaderItem ParseHeaderItem(std::string_view item) {
  HeaderItem out;
  auto semi = item.find(';');
  out.value = Trim(item.substr(0, semi));
  while (semi != std::string_view::npos) {
    item = item.substr(semi + 1);
    semi = item.find(';');
    const std::string_view param = Trim(item.substr(0, semi));
    const auto eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = Trim(param.substr(0, eq));
    const std::string_view val = Trim(param.substr(eq + 1));
    if (IEquals(key, "q")) {
      // "nan" or "inf" is no quality value: the item is not acceptable.
      const double q = std::strtod(std::string(val).c_str(), nullptr);
      out.q = std::isfinite(q) ? q : 0;
    } else if (IEquals(key, "version")) {
      out.version = val;
    }
  }
  return out;
}

}  // namespace rnic
