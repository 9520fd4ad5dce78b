#include "collectors/health/pcie_parse.h"

#include <charconv>

#include "collectors/host/sysfs_parse.h"

namespace rnic::pcie {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::optional<double> ParseLinkSpeed(std::string_view text) {
  text = Trim(text);
  double gts = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, gts);
  if (ec != std::errc() || p == text.data() || !(gts > 0)) {
    return std::nullopt;
  }
  std::string_view rest(p, static_cast<std::size_t>(end - p));
  if (!rest.starts_with(" GT/s")) return std::nullopt;
  rest.remove_prefix(5);
  if (!rest.empty() && rest.front() != ' ') return std::nullopt;
  return gts * 1e9;
}

std::optional<int> ParseLinkWidth(std::string_view text) {
  text = Trim(text);
  int w = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), w);
  if (ec != std::errc() || p != text.data() + text.size() || w <= 0) {
    return std::nullopt;
  }
  return w;
}

Result<std::vector<AerCount>> ParseAerCounters(std::string_view text) {
  std::vector<AerCount> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = Trim(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty()) continue;
    const auto sp = line.rfind(' ');
    if (sp == std::string_view::npos) {
      return Error{"AER line without a count: \"" + std::string(line) + "\""};
    }
    const std::string_view name = Trim(line.substr(0, sp));
    const auto v = sysfs::ParseCounterValue(line.substr(sp + 1));
    if (name.empty() || v.status != sysfs::ValueStatus::kOk) {
      return Error{"malformed AER line: \"" + std::string(line) + "\""};
    }
    if (name.starts_with("TOTAL_")) continue;
    out.push_back(AerCount{std::string(name), v.value});
  }
  return out;
}

}  // namespace rnic::pcie
