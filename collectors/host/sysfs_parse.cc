#include "collectors/host/sysfs_parse.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace rnic::sysfs {
namespace {

bool IsBlank(char c) {
  return c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\0';
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  return s;
}

}  // namespace

std::string_view TrimValue(std::string_view text) {
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return TrimLeft(text);
}

ParsedValue ParseCounterValue(std::string_view text) {
  text = TrimValue(text);
  ParsedValue out;
  if (text.empty()) return out;
  if (text.starts_with("N/A")) {
    out.status = ValueStatus::kNotAvailable;
    return out;
  }
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out.value, 10);
  if (ec == std::errc() && ptr == end) out.status = ValueStatus::kOk;
  return out;
}

std::optional<std::uint64_t> ParseHexOrDecimal(std::string_view text) {
  text = TrimValue(text);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

std::optional<NumberedName> ParseNumberedName(std::string_view text) {
  text = TrimValue(text);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  NumberedName out;
  const char* end = text.data() + colon;
  auto [ptr, ec] = std::from_chars(text.data(), end, out.number, 10);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  out.name = TrimLeft(text.substr(colon + 1));
  return out;
}

std::optional<double> ParseRateBytesPerSecond(std::string_view text) {
  text = TrimValue(text);
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view number = text.substr(0, space);
  std::string_view unit = TrimLeft(text.substr(space + 1));
  double value = 0;
  const char* end = number.data() + number.size();
  auto [ptr, ec] =
      std::from_chars(number.data(), end, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || !std::isfinite(value) || value < 0) {
    return std::nullopt;
  }
  double bits_per_unit = 0;
  if (unit.starts_with("Gb/s")) {
    bits_per_unit = 1e9;
  } else if (unit.starts_with("Mb/s")) {
    bits_per_unit = 1e6;
  } else if (unit.starts_with("Kb/s")) {
    bits_per_unit = 1e3;
  } else {
    return std::nullopt;
  }
  return value * bits_per_unit / 8.0;
}

bool IsPciAddress(std::string_view name) {
  // dddd:bb:dd.f, function 0-7
  if (name.size() != 12 || name[11] < '0' || name[11] > '7') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (i == 4 || i == 7) {
      if (c != ':') return false;
    } else if (i == 10) {
      if (c != '.') return false;
    } else if (!IsHex(c)) {
      return false;
    }
  }
  return true;
}

std::string_view PciRootBus(std::string_view path) {
  while (!path.empty()) {
    const auto slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    // "pci" + 4 hex digits + ':' + 2 hex digits.
    if (part.size() == 10 && part.substr(0, 3) == "pci" && part[7] == ':') {
      const std::string_view bus = part.substr(3);
      bool hex = true;
      for (std::size_t i = 0; i < bus.size(); ++i) {
        if (i != 4 && !std::isxdigit(static_cast<unsigned char>(bus[i]))) {
          hex = false;
        }
      }
      if (hex) return bus;
    }
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return {};
}

}  // namespace rnic::sysfs
