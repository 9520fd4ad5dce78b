#include "collectors/fabric/http_get.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <utility>

namespace rnic::fabric {
namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

class PlainConn final : public Conn {
 public:
  explicit PlainConn(int fd) : fd_(fd) {}
  ~PlainConn() override { close(fd_); }

  Status SendAll(std::string_view data, Deadline deadline) override {
    std::size_t sent = 0;
    while (sent < data.size()) {
      pollfd p{fd_, POLLOUT, 0};
      if (poll(&p, 1, MsLeft(deadline)) != 1) return Error{"send timed out"};
      const ssize_t n =
          send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN) return Error::FromErrno("send", errno);
      if (n > 0) sent += static_cast<std::size_t>(n);
    }
    return Status::Ok();
  }

  Result<std::size_t> Recv(char* buf, std::size_t size,
                           Deadline deadline) override {
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, MsLeft(deadline)) != 1) return Error{"answer timed out"};
      const ssize_t n = recv(fd_, buf, size, 0);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EAGAIN || errno == EINTR) continue;
      return Error::FromErrno("recv", errno);
    }
  }

 private:
  int fd_;
};

// A TLS server's first bytes are a record header: content type 0x15 (alert)
// or 0x16 (handshake), then version 3.x.
bool LooksLikeTls(std::string_view raw) {
  return raw.size() >= 3 && (raw[0] == 0x15 || raw[0] == 0x16) &&
         raw[1] == 0x03;
}

}  // namespace

int MsLeft(Deadline deadline) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
  return ms < 0 ? 0 : static_cast<int>(ms);
}

Result<std::string> ParseHttpAnswer(std::string_view raw) {
  const auto eol = raw.find("\r\n");
  if (eol == std::string_view::npos) return Error{"no status line"};
  const std::string_view status = raw.substr(0, eol);
  if (status.substr(0, 5) != "HTTP/" || status.size() < 12)
    return Error{"bad status line"};
  const auto sp = status.find(' ');
  if (sp == std::string_view::npos || status.substr(sp + 1, 3) != "200")
    return Error{"HTTP status " +
                 std::string(status.substr(
                     sp == std::string_view::npos ? 0 : sp + 1, 3))};
  const auto body = raw.find("\r\n\r\n");
  if (body == std::string_view::npos) return Error{"no end of headers"};
  return std::string(raw.substr(body + 4));
}

Result<int> ConnectTcp(const std::string& host, int port, Deadline deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
      rc != 0) {
    return Error{"resolve " + host + ": " + gai_strerror(rc)};
  }
  Fd s;
  int err = 0;
  for (addrinfo* a = res; a != nullptr && s.fd < 0; a = a->ai_next) {
    Fd c;
    c.fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  a->ai_protocol);
    if (c.fd < 0) continue;
    if (connect(c.fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      err = errno;
      continue;
    }
    pollfd p{c.fd, POLLOUT, 0};
    if (poll(&p, 1, MsLeft(deadline)) != 1) {
      err = ETIMEDOUT;
      continue;
    }
    socklen_t len = sizeof err;
    if (getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
      continue;
    std::swap(s.fd, c.fd);
  }
  freeaddrinfo(res);
  if (s.fd < 0) return Error::FromErrno("connect " + host + ":" + service, err);
  return std::exchange(s.fd, -1);
}

Result<std::string> HttpGetOver(Conn& conn, const std::string& host, int port,
                                const std::string& path,
                                const std::string& extra_headers,
                                Deadline deadline, std::size_t max_bytes) {
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: " + host + ":" +
                          std::to_string(port) + "\r\n" + extra_headers +
                          "Connection: close\r\n\r\n";
  if (auto s = conn.SendAll(req, deadline); !s) return s.error();
  std::string raw;
  char buf[4096];
  for (;;) {
    auto n = conn.Recv(buf, sizeof buf, deadline);
    if (!n) return n.error();
    if (*n == 0) break;
    raw.append(buf, *n);
    if (raw.size() > max_bytes + 8192) return Error{"answer too large"};
  }
  // A TLS server that gets plain HTTP closes, or answers with an alert.
  if (raw.empty()) {
    return Error{
        "the peer closed without answering (does it serve TLS? "
        "exchange_scheme: https)"};
  }
  if (LooksLikeTls(raw)) {
    return Error{"the peer answered with TLS (exchange_scheme: https?)"};
  }
  return ParseHttpAnswer(raw);
}

std::unique_ptr<Conn> MakePlainConn(int fd) {
  return std::make_unique<PlainConn>(fd);
}

Result<std::string> HttpGetBody(const std::string& host, int port,
                                const std::string& path,
                                std::chrono::milliseconds timeout,
                                std::size_t max_bytes) {
  const auto deadline = Clock::now() + timeout;
  auto fd = ConnectTcp(host, port, deadline);
  if (!fd) return fd.error();
  PlainConn conn(*fd);
  return HttpGetOver(conn, host, port, path, "", deadline, max_bytes);
}

}  // namespace rnic::fabric
