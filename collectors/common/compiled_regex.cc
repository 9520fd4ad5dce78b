#include "collectors/common/compiled_regex.h"

// GCC 12 reports a false -Wmaybe-uninitialized inside <regex> at -O2 with
// sanitizers; keep it out of -Werror builds for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>

namespace rnic {

struct CompiledRegex::Impl {
  std::string pattern;
  std::regex re;
};

namespace {

// libstdc++'s regex compiler reads the number of a back-reference (\N) or a
// repeat count ({N,M}) into a long without an overflow check: "\7777777777
// 777777777" is undefined behaviour (found by tests/fuzz/fuzz_flags). No
// sane pattern needs such a number, so refuse one of more than 9 digits.
bool HasHugeNumber(const std::string& p) {
  auto digits_at = [&](std::size_t i) {
    std::size_t n = 0;
    while (i + n < p.size() && p[i + n] >= '0' && p[i + n] <= '9') ++n;
    return n;
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      if (digits_at(i + 1) > 9) return true;
      ++i;  // the escaped character
    } else if (p[i] == '{') {
      const std::size_t lo = digits_at(i + 1);
      if (lo > 9) return true;
      if (i + 1 + lo < p.size() && p[i + 1 + lo] == ',' &&
          digits_at(i + 2 + lo) > 9) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

Result<CompiledRegex> CompiledRegex::Compile(const std::string& pattern) {
  CompiledRegex out;
  if (pattern.empty()) return out;
  if (HasHugeNumber(pattern)) {
    return Error{
        "not a valid regular expression (ECMAScript): a back-reference or "
        "repeat count of more than 9 digits"};
  }
  try {
    out.impl_ = std::make_shared<const Impl>(
        Impl{pattern, std::regex(pattern, std::regex::ECMAScript)});
  } catch (const std::regex_error& e) {
    return Error{std::string("not a valid regular expression (ECMAScript): ") +
                 e.what()};
  }
  return out;
}

bool CompiledRegex::Search(std::string_view text) const {
  return impl_ && std::regex_search(text.begin(), text.end(), impl_->re);
}

const std::string& CompiledRegex::pattern() const {
  static const std::string kEmpty;
  return impl_ ? impl_->pattern : kEmpty;
}

}  // namespace rnic
