#include "exporter/listen_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "collectors/common/host_port.h"

namespace rnic {
namespace {

Result<sockaddr_storage> Resolve(const std::string& address) {
  const std::string flag = "--web.listen-address " + address;
  auto hp = ParseHostPort(address);
  if (!hp.ok()) return Error{flag + ": " + hp.error().message};
  if (!hp->port) return Error{flag + ": expected host:port or :port"};
  sockaddr_storage ss{};
  const auto port = htons(static_cast<uint16_t>(*hp->port));
  if (hp->bracketed) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = port;
    if (inet_pton(AF_INET6, hp->host.c_str(), &s6->sin6_addr) != 1) {
      return Error{flag + ": not an IPv6 address in the brackets"};
    }
    return ss;
  }
  auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
  s4->sin_family = AF_INET;
  s4->sin_port = port;
  if (hp->host.empty()) {
    s4->sin_addr.s_addr = htonl(INADDR_ANY);
    return ss;
  }
  if (inet_pton(AF_INET, hp->host.c_str(), &s4->sin_addr) == 1) return ss;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* res = nullptr;
  if (getaddrinfo(hp->host.c_str(), nullptr, &hints, &res) != 0 ||
      res == nullptr) {
    return Error{flag + ": cannot resolve '" + hp->host + "'"};
  }
  s4->sin_addr = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
  freeaddrinfo(res);
  return ss;
}

std::string Format(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET6) {
    const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof buf);
    return "[" + std::string(buf) + "]:" + std::to_string(ntohs(s6->sin6_port));
  }
  const auto* s4 = reinterpret_cast<const sockaddr_in*>(&ss);
  inet_ntop(AF_INET, &s4->sin_addr, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(ntohs(s4->sin_port));
}

}  // namespace

Result<ListenSocket> OpenListenSocket(const std::string& address) {
  auto ss = Resolve(address);
  if (!ss.ok()) return ss.error();
  const int family = ss->ss_family;
  Fd fd(socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  auto fail = [&address](const char* what) {
    const int e = errno;
    return Error{
        "cannot listen on " + address + ": " + what + ": " + std::strerror(e),
        e};
  };
  if (!fd.ok()) return fail("socket");
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // "[::]:9709" is IPv6 only, as ":9709" is IPv4 only: each address
  // means what it says, and both may be given.
  if (family == AF_INET6) {
    setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  }
  const socklen_t len =
      family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&*ss), len) != 0) {
    return fail("bind");
  }
  if (listen(fd.get(), SOMAXCONN) != 0) return fail("listen");
  sockaddr_storage bound{};
  socklen_t blen = sizeof bound;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &blen);
  return ListenSocket{std::move(fd), Format(bound)};
}

}  // namespace rnic
