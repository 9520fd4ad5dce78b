// The hash for unordered maps keyed by std::string that are looked up with a
// string_view (C++20 heterogeneous lookup, with std::equal_to<>): a lookup on
// a hot path builds no std::string.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace rnic {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const {
    return std::hash<std::string_view>{}(s);
  }
};

}  // namespace rnic
