#include "tests/vm/tools/http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rnic::vmtest {

std::optional<std::string> HttpGetLocal(int port, const std::string& path,
                                        std::string* error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return std::nullopt;
  }
  timeval tv{.tv_sec = 20, .tv_usec = 0};  // TCG is slow, but not this slow
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "connect 127.0.0.1:" + std::to_string(port) + ": " +
             std::strerror(errno);
    close(fd);
    return std::nullopt;
  }
  std::string request =
      "GET " + path +
      " HTTP/1.0\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n";
  if (write(fd, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size())) {
    *error = std::string("write: ") + std::strerror(errno);
    close(fd);
    return std::nullopt;
  }
  std::string response;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = std::string("read: ") + std::strerror(errno);
      close(fd);
      return std::nullopt;
    }
    response.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  std::size_t header_end = response.find("\r\n\r\n");
  if (header_end == std::string::npos) {
    *error = "no HTTP header end in the answer";
    return std::nullopt;
  }
  std::string status = response.substr(0, response.find("\r\n"));
  if (status.find(" 200 ") == std::string::npos) {
    *error = "HTTP status: " + status;
    return std::nullopt;
  }
  return response.substr(header_end + 4);
}

}  // namespace rnic::vmtest
