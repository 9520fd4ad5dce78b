// Typed collector options: each --collector.<c>.<o> flag has a type, and its
// value (or default) is parsed once at start-up, for disabled collectors too,
// so a typo stops the exporter instead of silently falling back. Factories
// read the parsed values; none parses text.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "collectors/common/compiled_regex.h"
#include "collectors/common/duration.h"
#include "collectors/common/result.h"

namespace rnic {

enum class OptionType { kBool, kInt, kDuration, kRegex, kString };

struct OptionSpec {
  std::string name;  // flag is --collector.<collector>.<name>
  std::string help;
  std::string default_value;  // text, parsed like a flag value
  OptionType type = OptionType::kString;
  // kInt: the value's range; kDuration: the range in milliseconds.
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

// Declarations read better than aggregate initializers with a type in the
// middle: BoolOption("qp-counters", "...", true).
[[nodiscard]] OptionSpec BoolOption(std::string name, std::string help,
                                    bool default_value);
[[nodiscard]] OptionSpec IntOption(std::string name, std::string help,
                                   std::int64_t default_value, std::int64_t min,
                                   std::int64_t max);
// Bounded like every duration of the config file: a flag cannot name one
// that overflows a clock or spins a thread.
[[nodiscard]] OptionSpec DurationOption(std::string name, std::string help,
                                        std::string default_value,
                                        std::chrono::milliseconds min,
                                        std::chrono::milliseconds max);
// ECMAScript, unanchored; an empty value means "not set".
[[nodiscard]] OptionSpec RegexOption(std::string name, std::string help,
                                     std::string default_value = "");
[[nodiscard]] OptionSpec StringOption(std::string name, std::string help,
                                      std::string default_value = "");

// "bool", "int", "duration", "regex", "string"; for --help and the docs.
[[nodiscard]] std::string_view TypeName(OptionType type);
// The type with its range, for --help and the docs: "bool", "int >= 0",
// "int 1..64", "duration 1s..1d", "regex", "string".
[[nodiscard]] std::string TypeText(const OptionSpec& spec);

using OptionValue = std::variant<bool, std::int64_t, std::chrono::milliseconds,
                                 CompiledRegex, std::string>;

// Parses `text` as `spec` types it. The error is the reason alone ("not a
// boolean (true/false)"); callers prefix the flag and value.
[[nodiscard]] Result<OptionValue> ParseOptionValue(const OptionSpec& spec,
                                                   const std::string& text);

// Option name -> parsed value, every declared option present.
class OptionValues {
 public:
  OptionValues() = default;

  // Parses every option of `specs`: the value in `given` when present, else
  // the default. The error reads "--collector.<c>.<o>=<value>: <reason>".
  // Names in `given` that no spec declares are an error too.
  [[nodiscard]] static Result<OptionValues> Parse(
      std::string_view collector, const std::vector<OptionSpec>& specs,
      const std::map<std::string, std::string>& given);

  // Typed accessors. Asking for an option that was not declared, or with
  // another type, is a bug in the factory and throws std::logic_error.
  [[nodiscard]] bool Bool(const std::string& name) const;
  [[nodiscard]] std::int64_t Int(const std::string& name) const;
  [[nodiscard]] std::chrono::milliseconds Duration(
      const std::string& name) const;
  [[nodiscard]] const CompiledRegex& Regex(const std::string& name) const;
  [[nodiscard]] const std::string& String(const std::string& name) const;
  // The text the value was parsed from (for logs).
  [[nodiscard]] const std::string& Text(const std::string& name) const;

 private:
  template <typename T>
  const T& Get(const std::string& name) const;

  struct Entry {
    std::string text;
    OptionValue value;
  };
  std::map<std::string, Entry> values_;
};

}  // namespace rnic
