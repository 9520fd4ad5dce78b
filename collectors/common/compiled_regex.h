// An ECMAScript regular expression compiled once (at start-up, from an
// option) and shared by copies. <regex> stays out of the headers: GCC 12
// warns falsely inside it at -O2 with sanitizers, and it is slow to compile.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic {

class CompiledRegex {
 public:
  CompiledRegex() = default;  // unset: matches nothing, empty() is true

  // An empty pattern gives an unset regex. The error is the reason alone
  // ("not a valid regular expression (ECMAScript): ...").
  [[nodiscard]] static Result<CompiledRegex> Compile(
      const std::string& pattern);

  [[nodiscard]] bool empty() const { return impl_ == nullptr; }
  // Unanchored: a match anywhere in `text` counts. False when unset.
  [[nodiscard]] bool Search(std::string_view text) const;
  [[nodiscard]] const std::string& pattern() const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;  // immutable, so copies can share it
};

}  // namespace rnic
