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

Result<CompiledRegex> CompiledRegex::Compile(const std::string& pattern) {
  CompiledRegex out;
  if (pattern.empty()) return out;
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
