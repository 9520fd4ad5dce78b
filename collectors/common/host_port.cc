#include "collectors/common/host_port.h"

#include <charconv>

namespace rnic {

Result<HostPort> ParseHostPort(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  HostPort hp;
  std::string_view port;
  bool has_port = false;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      return Error{"unclosed '[' in " + quoted, EINVAL};
    }
    hp.bracketed = true;
    hp.host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return Error{"bad address " + quoted, EINVAL};
      port = rest.substr(1);
      has_port = true;
    }
  } else if (const auto colon = text.rfind(':');
             colon != std::string_view::npos) {
    if (text.find(':') != colon) {
      return Error{"IPv6 addresses need [brackets]: " + quoted, EINVAL};
    }
    hp.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    has_port = true;
  } else {
    hp.host = std::string(text);
  }
  if (has_port) {
    int p = -1;
    const auto [end, ec] =
        std::from_chars(port.data(), port.data() + port.size(), p);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() ||
        p < 0 || p > 65535) {
      return Error{"bad port '" + std::string(port) + "' in " + quoted +
                       " (expected 0 to 65535)",
                   EINVAL};
    }
    hp.port = p;
  }
  return hp;
}

}  // namespace rnic
