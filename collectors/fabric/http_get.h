// The client side of the address exchange: one HTTP/1.0 GET to a peer's
// exporter with a deadline on every step (a host that is down must not stall
// the probe loop for a TCP connect timeout). Plain HTTP here; TLS and basic
// auth (peers whose exporters have a --web.config.file) in exchange_client.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
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

using Deadline = std::chrono::steady_clock::time_point;

// A connected stream with a deadline on every call: plain TCP or TLS.
class Conn {
 public:
  virtual ~Conn() = default;
  [[nodiscard]] virtual Status SendAll(std::string_view data,
                                       Deadline deadline) = 0;
  // Bytes read into buf; 0 when the peer closed.
  [[nodiscard]] virtual Result<std::size_t> Recv(char* buf, std::size_t size,
                                                 Deadline deadline) = 0;
};

// An open non-blocking socket connected to host:port; the caller closes it.
[[nodiscard]] Result<int> ConnectTcp(const std::string& host, int port,
                                     Deadline deadline);
// A plain TCP Conn over the connected socket `fd` (closed with it).
[[nodiscard]] std::unique_ptr<Conn> MakePlainConn(int fd);
// Milliseconds to `deadline` for poll(), at least 0.
[[nodiscard]] int MsLeft(Deadline deadline);

// GET `path` over `conn`; `extra_headers` are whole "Name: value\r\n" lines.
[[nodiscard]] Result<std::string> HttpGetOver(
    Conn& conn, const std::string& host, int port, const std::string& path,
    const std::string& extra_headers, Deadline deadline, std::size_t max_bytes);

// Splits a raw HTTP/1.x answer: status 200 required, body after the blank
// line. Pure, for tests and the fuzz target.
[[nodiscard]] Result<std::string> ParseHttpAnswer(std::string_view raw);

}  // namespace rnic::fabric
