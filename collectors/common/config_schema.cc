#include "collectors/common/config_schema.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

#include "collectors/common/markdown_cell.h"

namespace rnic::config {
namespace {

std::string Trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string ShowNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string Range(const std::string& lo, const std::string& hi) {
  return lo + ".." + hi;
}

void Rows(const std::vector<KeyDoc>& keys, const std::string& prefix,
          std::string& out) {
  for (const auto& k : keys) {
    const std::string name = prefix + k.name;
    const std::string def = k.required ? "required" : k.default_text;
    out += "| `" + name + "` | " + MarkdownCell(k.value.type) + " | " + def +
           " | " + MarkdownCell(k.value.range) + " | " + MarkdownCell(k.doc) +
           " |\n";
    Rows(k.value.keys, name + (k.value.keys_per_item ? "[]." : "."), out);
  }
}

}  // namespace

std::string FormatDuration(std::chrono::milliseconds d) {
  using std::chrono::milliseconds;
  if (d.count() == 0) return "0s";
  struct Unit {
    const char* suffix;
    std::int64_t ms;
  };
  constexpr Unit kUnits[] = {
      {"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}};
  std::string out;
  std::int64_t left = d.count();
  for (const auto& u : kUnits) {
    if (left >= u.ms) {
      out += std::to_string(left / u.ms) + u.suffix;
      left %= u.ms;
    }
  }
  return out;
}

std::string FormatSize(std::uint64_t bytes) {
  constexpr std::pair<const char*, std::uint64_t> kUnits[] = {
      {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
  for (const auto& [suffix, mul] : kUnits) {
    if (bytes >= mul && bytes % mul == 0) {
      return std::to_string(bytes / mul) + suffix;
    }
  }
  return std::to_string(bytes);
}

Result<std::uint64_t> ParseSize(const std::string& text) {
  const std::string s = Trim(text);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return Error{"not a size: " + s};
  std::string unit(p, static_cast<const char*>(s.data() + s.size()));
  for (auto& c : unit) c = static_cast<char>(std::tolower(c));
  std::uint64_t mul = 1;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k" || unit == "kib" || unit == "kb") {
    mul = 1ull << 10;
  } else if (unit == "m" || unit == "mib" || unit == "mb") {
    mul = 1ull << 20;
  } else if (unit == "g" || unit == "gib" || unit == "gb") {
    mul = 1ull << 30;
  } else {
    return Error{"unknown size unit '" + unit + "'"};
  }
  if (v > std::numeric_limits<std::uint64_t>::max() / mul) {
    return Error{"size out of range: " + s};
  }
  return v * mul;
}

Value<bool> Bool() {
  return {{"bool", "", {}, false},
          [](const YAML::Node& n, const std::string& where) {
            return yaml::Bool(n, where);
          },
          [](const bool& v) { return std::string(v ? "true" : "false"); }};
}

Value<std::int64_t> Integer(std::int64_t lo, std::int64_t hi) {
  return {{"int", Range(std::to_string(lo), std::to_string(hi)), {}, false},
          [lo, hi](const YAML::Node& n, const std::string& where) {
            return yaml::Int(n, where, lo, hi);
          },
          [](const std::int64_t& v) { return std::to_string(v); }};
}

Value<double> Number(double lo, double hi) {
  return {{"number", Range(ShowNumber(lo), ShowNumber(hi)), {}, false},
          [lo, hi](const YAML::Node& n, const std::string& where) {
            return yaml::Number(n, where, lo, hi);
          },
          [](const double& v) { return ShowNumber(v); }};
}

Value<std::chrono::milliseconds> Duration(std::chrono::milliseconds lo,
                                          std::chrono::milliseconds hi) {
  return {
      {"duration", Range(FormatDuration(lo), FormatDuration(hi)), {}, false},
      [lo, hi](const YAML::Node& n, const std::string& where) {
        return yaml::Duration(n, where, lo, hi);
      },
      [](const std::chrono::milliseconds& v) { return FormatDuration(v); }};
}

Value<std::string> String() {
  return {{"string", "", {}, false},
          [](const YAML::Node& n, const std::string& where) {
            return yaml::Text(n, where);
          },
          [](const std::string& v) { return v; }};
}

Value<std::string> NonEmptyString() {
  Value<std::string> v = String();
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::string> {
    auto t = yaml::Text(n, where);
    if (!t) return t.error();
    if (t->empty()) return yaml::KeyError(where, "must not be empty");
    return t;
  };
  return v;
}

Value<std::uint64_t> Size(std::uint64_t lo, std::uint64_t hi) {
  return {{"size", Range(FormatSize(lo), FormatSize(hi)), {}, false},
          [lo, hi](const YAML::Node& n,
                   const std::string& where) -> Result<std::uint64_t> {
            if (!n.IsScalar()) return yaml::KeyError(where, "must be a size");
            auto b = ParseSize(n.Scalar());
            if (!b) return yaml::KeyError(where, b.error().message);
            if (*b < lo || *b > hi) {
              return yaml::KeyError(where, "must be between " +
                                               std::to_string(lo) + " and " +
                                               std::to_string(hi));
            }
            return b;
          },
          [](const std::uint64_t& v) { return FormatSize(v); }};
}

Value<std::vector<std::string>> StringList() { return List(String()); }

Value<std::map<std::string, std::string>> StringMap() {
  using M = std::map<std::string, std::string>;
  return {{"map of strings", "", {}, false},
          [](const YAML::Node& n, const std::string& where) -> Result<M> {
            auto keys = MapKeys(n, where);
            if (!keys) return keys.error();
            M out;
            for (const auto& k : *keys) {
              auto v = yaml::Text(n[k], where + "." + k);
              if (!v) return v.error();
              out[k] = *v;
            }
            return out;
          },
          [](const M&) { return std::string(); }};
}

std::string Markdown(const SectionDoc& section) {
  std::string out = "### `" + section.name + ":`\n\n" + section.doc;
  if (section.value.keys_per_item) out += " A list; each entry takes:";
  out +=
      "\n\n| key | type | default | range | meaning |\n"
      "|---|---|---|---|---|\n";
  Rows(section.value.keys, "", out);
  return out;
}

}  // namespace rnic::config
