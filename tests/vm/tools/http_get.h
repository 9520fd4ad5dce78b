// Minimal HTTP clients against 127.0.0.1, so the guest tools need nothing but
// libc (busybox's static wget crashes there): a one-shot HTTP/1.0 GET, and a
// kept-alive HTTP/1.1 connection that scrapes the way Prometheus does.
#pragma once

#include <optional>
#include <string>

namespace rnic::vmtest {

// Body of a 200 answer to GET `path` on 127.0.0.1:`port`; nullopt with a
// reason in *error otherwise.
[[nodiscard]] std::optional<std::string> HttpGetLocal(int port,
                                                      const std::string& path,
                                                      std::string* error);

// One HTTP/1.1 connection to 127.0.0.1:`port`, reused for every request, as
// Prometheus keeps one per target. Answers must carry Content-Length (the
// exporter's do); a server that closes the connection makes the next Get
// fail instead of silently reconnecting, so "one connection" is checked.
class HttpConnection {
 public:
  struct Response {
    int status = 0;
    std::string content_encoding;  // "gzip" or empty
    std::string body;              // as sent (still compressed for gzip)
  };

  [[nodiscard]] static std::optional<HttpConnection> Open(int port,
                                                          std::string* error);
  HttpConnection(HttpConnection&& other) noexcept;
  HttpConnection& operator=(HttpConnection&& other) noexcept;
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection();

  // GET `path` with the headers Prometheus sends (Accept, scrape timeout);
  // with `gzip`, also "Accept-Encoding: gzip", as Prometheus does by default.
  [[nodiscard]] std::optional<Response> Get(const std::string& path, bool gzip,
                                            std::string* error);

 private:
  explicit HttpConnection(int fd) : fd_(fd) {}
  // Reads more bytes into buffer_; false on EOF or error (reason in *error).
  bool Fill(std::string* error);
  int fd_ = -1;
  std::string buffer_;  // received bytes not yet consumed
};

}  // namespace rnic::vmtest
