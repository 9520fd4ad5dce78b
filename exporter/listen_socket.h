// --web.listen-address values as bound, listening TCP sockets.
#pragma once

#include <string>

#include "collectors/common/dir_fd.h"
#include "collectors/common/result.h"

namespace rnic {

struct ListenSocket {
  Fd fd;                // non-blocking, listening
  std::string address;  // as bound: "127.0.0.1:9709", "[::1]:9709"
};

// ":9709" (every IPv4 address), "ip:port", "host:port" (its first IPv4
// address) or "[v6]:port" (IPv6 only); port 0 picks a free port. Errors name
// the flag and the address.
[[nodiscard]] Result<ListenSocket> OpenListenSocket(const std::string& address);

}  // namespace rnic
