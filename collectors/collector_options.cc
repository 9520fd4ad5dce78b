#include "collectors/collector_options.h"

#include <charconv>
#include <limits>
#include <stdexcept>
#include <utility>

#include "collectors/common/config_schema.h"

namespace rnic {
namespace {

// "1s..1d", as the config file's reference writes a duration's range.
std::string DurationRange(const OptionSpec& spec) {
  return config::FormatDuration(std::chrono::milliseconds(spec.min)) + ".." +
         config::FormatDuration(std::chrono::milliseconds(spec.max));
}

}  // namespace

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
                          std::string default_value,
                          std::chrono::milliseconds min,
                          std::chrono::milliseconds max) {
  return OptionSpec{
      std::move(name),       std::move(help), std::move(default_value),
      OptionType::kDuration, min.count(),     max.count()};
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
  if (spec.type == OptionType::kDuration) {
    return out + " " + DurationRange(spec);
  }
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
      if (d->count() < spec.min || d->count() > spec.max) {
        const auto r = DurationRange(spec);
        return Error{"must be between " + r.substr(0, r.find("..")) + " and " +
                     r.substr(r.find("..") + 2)};
      }
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
