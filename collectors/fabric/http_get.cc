#include "collectors/fabric/http_get.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace rnic::fabric {
namespace {

using Clock = std::chrono::steady_clock;

int MsLeft(Clock::time_point deadline) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
  return ms < 0 ? 0 : static_cast<int>(ms);
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

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

Result<std::string> HttpGetBody(const std::string& host, int port,
                                const std::string& path,
                                std::chrono::milliseconds timeout,
                                std::size_t max_bytes) {
  const auto deadline = Clock::now() + timeout;
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
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: " + host + ":" +
                          service + "\r\nConnection: close\r\n\r\n";
  std::size_t sent = 0;
  while (sent < req.size()) {
    pollfd p{s.fd, POLLOUT, 0};
    if (poll(&p, 1, MsLeft(deadline)) != 1) return Error{"send timed out"};
    const ssize_t n =
        send(s.fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) return Error::FromErrno("send", errno);
    if (n > 0) sent += static_cast<std::size_t>(n);
  }
  std::string raw;
  char buf[4096];
  for (;;) {
    pollfd p{s.fd, POLLIN, 0};
    if (poll(&p, 1, MsLeft(deadline)) != 1) return Error{"answer timed out"};
    const ssize_t n = recv(s.fd, buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Error::FromErrno("recv", errno);
    }
    raw.append(buf, static_cast<std::size_t>(n));
    if (raw.size() > max_bytes + 8192) return Error{"answer too large"};
  }
  return ParseHttpAnswer(raw);
}

}  // namespace rnic::fabric
