#include "collectors/collector_options.h"

#include <array>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace rnic {

OptionSpec BoolOption(std::string name, std::string help, bool default_value) {
  return OptionSpec{std::move(name), std::move(help),
                    default_value ? "true" : "false", OptionType::kBool};
}

OptionSpec IntOption(std::string name, std::string help,
                     std::int64_t default_value, std::int64_t min,
                     std::int64_t max) {
  return OptionSpec{std::move(name),
                    std::move(help),
                    std::to_string(default_value),
                    OptionType::kInt,
                    min,
                    max};
}

OptionSpec DurationOption(std::string name, std::string help,
                          std::string default_value) {
  return OptionSpec{std::move(name), std::move(help), std::move(default_value),
                    OptionType::kDuration};
}

OptionSpec RegexOption(std::string name, std::string help,
                       std::string default_value) {
  return OptionSpec{std::move(name), std::move(help), std::move(default_value),
                    OptionType::kRegex};
}

OptionSpec StringOption(std::string name, std::string help,
                        std::string default_value) {
  return OptionSpec{std::move(name), std::move(help), std::move(default_value),
                    OptionType::kString};
}

std::string_view TypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "bool";
    case OptionType::kInt:
      return "int";
    case OptionType::kDuration:
      return "duration";
    case OptionType::kRegex:
      return "regex";
    case OptionType::kString:
      return "string";
  }
  return "?";
}

std::string TypeText(const OptionSpec& spec) {
  std::string out(TypeName(spec.type));
  if (spec.type != OptionType::kInt) return out;
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (spec.min != kMin && spec.max != kMax) {
    out += " " + std::to_string(spec.min) + ".." + std::to_string(spec.max);
  } else if (spec.min != kMin) {
    out += " >= " + std::to_string(spec.min);
  } else if (spec.max != kMax) {
    out += " <= " + std::to_string(spec.max);
  }
  return out;
}

namespace {

constexpr const char* kDurationForm =
    "not a duration (e.g. 30s, 5m, 1h30m; units ms, s, m, h, d, w, y)";

struct Unit {
  std::string_view suffix;
  std::int64_t ms;
};
// Largest first: a duration names them in this order.
constexpr std::array<Unit, 7> kUnits = {{
    {"y", 365LL * 24 * 3600 * 1000},
    {"w", 7LL * 24 * 3600 * 1000},
    {"d", 24LL * 3600 * 1000},
    {"h", 3600LL * 1000},
    {"m", 60LL * 1000},
    {"s", 1000},
    {"ms", 1},
}};

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  if (text == "0") return std::chrono::milliseconds(0);
  if (text.empty()) return Error{kDurationForm};
  std::int64_t total = 0;
  std::size_t next_unit = 0;  // units must appear largest first, once each
  std::size_t i = 0;
  while (i < text.size()) {
    std::int64_t n = 0;
    auto [p, ec] =
        std::from_chars(text.data() + i, text.data() + text.size(), n);
    if (ec != std::errc() || text[i] == '-' || text[i] == '+') {
      return Error{kDurationForm};
    }
    i = static_cast<std::size_t>(p - text.data());
    std::size_t u = kUnits.size();
    for (std::size_t k = next_unit; k < kUnits.size(); ++k) {
      const auto suffix = kUnits[k].suffix;
      if (text.substr(i, suffix.size()) != suffix) continue;
      // "ms" also starts with "m": take "m" only when no 's' follows.
      if (suffix == "m" && text.substr(i, 2) == "ms") continue;
      u = k;
      break;
    }
    if (u == kUnits.size()) return Error{kDurationForm};
    if (n > std::numeric_limits<std::int64_t>::max() / kUnits[u].ms ||
        total > std::numeric_limits<std::int64_t>::max() - n * kUnits[u].ms) {
      return Error{"duration out of range"};
    }
    total += n * kUnits[u].ms;
    i += kUnits[u].suffix.size();
    next_unit = u + 1;
  }
  return std::chrono::milliseconds(total);
}

Result<OptionValue> ParseOptionValue(const OptionSpec& spec,
                                     const std::string& text) {
  switch (spec.type) {
    case OptionType::kBool:
      if (text == "true") return OptionValue(true);
      if (text == "false") return OptionValue(false);
      return Error{"not a boolean (true/false)"};
    case OptionType::kInt: {
      std::int64_t n = 0;
      const char* end = text.data() + text.size();
      auto [p, ec] = std::from_chars(text.data(), end, n);
      if (text.empty() || ec != std::errc() || p != end || n < spec.min ||
          n > spec.max) {
        return Error{"not an integer" +
                     TypeText(spec).substr(TypeName(spec.type).size())};
      }
      return OptionValue(n);
    }
    case OptionType::kDuration: {
      auto d = ParseDuration(text);
      if (!d.ok()) return d.error();
      return OptionValue(*d);
    }
    case OptionType::kRegex: {
      auto re = CompiledRegex::Compile(text);
      if (!re.ok()) return re.error();
      return OptionValue(std::move(re).value());
    }
    case OptionType::kString:
      return OptionValue(text);
  }
  return Error{"unknown option type"};
}

Result<OptionValues> OptionValues::Parse(
    std::string_view collector, const std::vector<OptionSpec>& specs,
    const std::map<std::string, std::string>& given) {
  OptionValues out;
  const std::string prefix = "--collector." + std::string(collector) + ".";
  for (const auto& [name, text] : given) {
    bool declared = false;
    for (const auto& s : specs) declared = declared || s.name == name;
    if (!declared) {
      return Error{prefix + name + ": unknown option of collector " +
                   std::string(collector)};
    }
  }
  for (const auto& s : specs) {
    auto it = given.find(s.name);
    const std::string& text = it == given.end() ? s.default_value : it->second;
    auto v = ParseOptionValue(s, text);
    if (!v.ok()) {
      // A bad default is a bug, but it is reported the same way.
      return Error{prefix + s.name + "=" + text + ": " + v.error().message +
                   (it == given.end() ? " (the default)" : "")};
    }
    out.values_[s.name] = Entry{text, std::move(v).value()};
  }
  return out;
}

template <typename T>
const T& OptionValues::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    throw std::logic_error("option '" + name + "' is not declared");
  }
  const T* v = std::get_if<T>(&it->second.value);
  if (v == nullptr) {
    throw std::logic_error("option '" + name + "' read with another type");
  }
  return *v;
}

bool OptionValues::Bool(const std::string& name) const {
  return Get<bool>(name);
}

std::int64_t OptionValues::Int(const std::string& name) const {
  return Get<std::int64_t>(name);
}

std::chrono::milliseconds OptionValues::Duration(
    const std::string& name) const {
  return Get<std::chrono::milliseconds>(name);
}

const CompiledRegex& OptionValues::Regex(const std::string& name) const {
  return Get<CompiledRegex>(name);
}

const std::string& OptionValues::String(const std::string& name) const {
  return Get<std::string>(name);
}

const std::string& OptionValues::Text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    throw std::logic_error("option '" + name + "' is not declared");
  }
  return it->second.text;
}

}  // namespace rnic
