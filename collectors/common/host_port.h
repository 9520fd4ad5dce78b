// "host", "host:port", ":port", "[v6]" and "[v6]:port": the one parser of
// addresses from flags and configuration (--web.listen-address, fabric
// peers, DNS names, /probe targets). Callers add their own rules (a port
// required, a host required, IPv6 refused).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic {

struct HostPort {
  std::string host;         // without brackets; may be empty (":9709")
  std::optional<int> port;  // 0..65535 when given
  bool bracketed = false;   // "[...]": an IPv6 literal
};

// Errors say what is wrong with `text` ("bad port '99999' in ':99999'").
[[nodiscard]] Result<HostPort> ParseHostPort(std::string_view text);

}  // namespace rnic
