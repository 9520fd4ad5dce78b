#include "tests/vm/tools/text_format.h"

#include <cmath>
#include <cstdlib>

namespace rnic::vmtest {
namespace {

// Parses `{k="v",...}` starting at line[pos] == '{'; leaves pos after '}'.
bool ParseLabels(std::string_view line, std::size_t& pos,
                 std::map<std::string, std::string>& out) {
  ++pos;  // '{'
  while (pos < line.size() && line[pos] != '}') {
    std::size_t eq = line.find('=', pos);
    if (eq == std::string_view::npos || eq + 1 >= line.size() ||
        line[eq + 1] != '"') {
      return false;
    }
    std::string key(line.substr(pos, eq - pos));
    std::string value;
    std::size_t i = eq + 2;
    for (; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        ++i;
        value += line[i] == 'n' ? '\n' : line[i];
      } else {
        value += line[i];
      }
    }
    if (i >= line.size()) return false;
    out[key] = value;
    pos = i + 1;
    if (pos < line.size() && line[pos] == ',') ++pos;
  }
  if (pos >= line.size()) return false;
  ++pos;  // '}'
  return true;
}

std::optional<double> ParseValue(std::string_view token) {
  if (token == "+Inf") return INFINITY;
  if (token == "-Inf") return -INFINITY;
  if (token == "NaN") return NAN;
  std::string s(token);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::vector<Sample>> ParseTextFormat(std::string_view text,
                                                   std::string* error) {
  std::vector<Sample> out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? "" : text.substr(nl + 1);
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    s.raw = std::string(line);
    std::size_t pos = line.find_first_of("{ ");
    if (pos == std::string_view::npos) {
      *error = "no value: " + s.raw;
      return std::nullopt;
    }
    s.name = std::string(line.substr(0, pos));
    if (line[pos] == '{' && !ParseLabels(line, pos, s.labels)) {
      *error = "bad labels: " + s.raw;
      return std::nullopt;
    }
    while (pos < line.size() && line[pos] == ' ') ++pos;
    std::string_view rest = line.substr(pos);
    std::optional<double> v = ParseValue(rest.substr(0, rest.find(' ')));
    if (!v) {
      *error = "bad value: " + s.raw;
      return std::nullopt;
    }
    s.value = *v;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rnic::vmtest
