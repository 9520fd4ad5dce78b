// The client side of the address exchange: one HTTP/1.0 GET to a peer's
// exporter with a deadline on every step (a host that is down must not stall
// the probe loop for a TCP connect timeout). Plain HTTP: the answer is the
// peer's public RDMA addresses, nothing secret.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic::fabric {

using HttpGet = std::function<Result<std::string>(
    const std::string& host, int port, const std::string& path,
    std::chrono::milliseconds timeout)>;

// Body of a 200 answer of at most `max_bytes`; anything else is an error.
[[nodiscard]] Result<std::string> HttpGetBody(const std::string& host, int port,
                                              const std::string& path,
                                              std::chrono::milliseconds timeout,
                                              std::size_t max_bytes = 1 << 20);

// Splits a raw HTTP/1.x answer: status 200 required, body after the blank
// line. Pure, for tests and the fuzz target.
[[nodiscard]] Result<std::string> ParseHttpAnswer(std::string_view raw);

}  // namespace rnic::fabric
