#include "tests/vm/tools/http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <utility>

namespace rnic::vmtest {
namespace {

// A connected TCP socket to 127.0.0.1:port, or -1 with *error set.
int ConnectLocal(int port, std::string* error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
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
    return -1;
  }
  return fd;
}

bool WriteAll(int fd, const std::string& data, std::string* error) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("write: ") + std::strerror(errno);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Case-insensitive header name match.
bool NameIs(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(name[i])))
      return false;
  }
  return true;
}

std::string_view HeaderValue(std::string_view line) {
  std::string_view v = line.substr(line.find(':') + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
    v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
    v.remove_suffix(1);
  return v;
}

}  // namespace

std::optional<std::string> HttpGetLocal(int port, const std::string& path,
                                        std::string* error) {
  int fd = ConnectLocal(port, error);
  if (fd < 0) return std::nullopt;
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

std::optional<HttpConnection> HttpConnection::Open(int port,
                                                   std::string* error) {
  int fd = ConnectLocal(port, error);
  if (fd < 0) return std::nullopt;
  return HttpConnection(fd);
}

HttpConnection::HttpConnection(HttpConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), buffer_(std::move(other.buffer_)) {}

HttpConnection& HttpConnection::operator=(HttpConnection&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

HttpConnection::~HttpConnection() {
  if (fd_ >= 0) close(fd_);
}

bool HttpConnection::Fill(std::string* error) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    *error = n == 0 ? "the server closed the connection"
                    : std::string("read: ") + std::strerror(errno);
    return false;
  }
}

std::optional<HttpConnection::Response> HttpConnection::Get(
    const std::string& path, bool gzip, std::string* error) {
  if (fd_ < 0) {
    *error = "connection is closed";
    return std::nullopt;
  }
  // The request headers of Prometheus 2.42 (Debian 12), so format and
  // deadline negotiation take the same path as under a real scraper.
  std::string request = "GET " + path +
                        " HTTP/1.1\r\nHost: localhost\r\n"
                        "User-Agent: Prometheus/2.42.0\r\n"
                        "Accept: application/openmetrics-text;version=1.0.0,"
                        "application/openmetrics-text;version=0.0.1;q=0.75,"
                        "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
                        "X-Prometheus-Scrape-Timeout-Seconds: 10\r\n";
  if (gzip) request += "Accept-Encoding: gzip\r\n";
  request += "\r\n";
  if (!WriteAll(fd_, request, error)) return std::nullopt;

  std::size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!Fill(error)) return std::nullopt;
  }
  std::string_view head(buffer_.data(), header_end);
  Response r;
  std::optional<std::size_t> length;
  bool server_closes = false;
  std::size_t pos = 0;
  bool first = true;
  while (pos <= head.size()) {
    std::size_t eol = head.find("\r\n", pos);
    if (eol == std::string_view::npos) eol = head.size();
    std::string_view line = head.substr(pos, eol - pos);
    pos = eol + 2;
    if (first) {
      first = false;
      // "HTTP/1.1 200 OK"
      std::size_t sp = line.find(' ');
      if (line.rfind("HTTP/1.", 0) != 0 || sp == std::string_view::npos ||
          std::from_chars(line.data() + sp + 1, line.data() + line.size(),
                          r.status)
                  .ec != std::errc()) {
        *error = "bad status line: " + std::string(line);
        return std::nullopt;
      }
      continue;
    }
    if (NameIs(line, "content-length")) {
      std::string_view v = HeaderValue(line);
      std::size_t n = 0;
      if (std::from_chars(v.data(), v.data() + v.size(), n).ec != std::errc()) {
        *error = "bad Content-Length: " + std::string(v);
        return std::nullopt;
      }
      length = n;
    } else if (NameIs(line, "content-encoding")) {
      r.content_encoding = std::string(HeaderValue(line));
    } else if (NameIs(line, "transfer-encoding")) {
      *error = "Transfer-Encoding is not supported: " + std::string(line);
      return std::nullopt;
    } else if (NameIs(line, "connection")) {
      server_closes = HeaderValue(line) == "close";
    }
  }
  if (!length) {
    *error = "the answer has no Content-Length";
    return std::nullopt;
  }
  const std::size_t body_start = header_end + 4;
  while (buffer_.size() < body_start + *length) {
    if (!Fill(error)) return std::nullopt;
  }
  r.body = buffer_.substr(body_start, *length);
  buffer_.erase(0, body_start + *length);
  if (server_closes) {
    close(fd_);
    fd_ = -1;
  }
  return r;
}

}  // namespace rnic::vmtest
