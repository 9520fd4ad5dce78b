// The query string of a request URI ("target=a%3A1&device=x") as a map of
// decoded keys and values; for the collectors' endpoints (/probe).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic {

// '+' is a space, %XX a byte; a key given twice keeps its last value. A bad
// escape ("%G1", "%4") or a key without '=' with an empty name is an error.
[[nodiscard]] Result<std::map<std::string, std::string>> ParseQueryString(
    std::string_view query);

}  // namespace rnic
