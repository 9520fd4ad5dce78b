// gzip for /metrics, negotiated from Accept-Encoding (q=0 means "not this"),
// compressed by libdeflate.
#pragma once

#include <string>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic {

[[nodiscard]] bool AcceptsGzip(std::string_view accept_encoding);
[[nodiscard]] Result<std::string> GzipCompress(std::string_view data);

}  // namespace rnic
