// CivetWeb plumbing: listening sockets, worker threads, and translation
// between CivetWeb connections and WebHandler requests/responses.
#pragma once

#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "exporter/heap_trim.h"
#include "exporter/web_handler.h"

struct mg_context;

namespace rnic {

class HttpServer {
 public:
  explicit HttpServer(WebHandler& handler) : handler_(handler) {}
  ~HttpServer() { Stop(); }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on every address (":port", "ip:port", "host:port"); port 0 picks
  // a free port. Returns the bound "ip:port" strings.
  [[nodiscard]] Result<std::vector<std::string>> Start(
      const std::vector<std::string>& addresses, int worker_threads);
  // Stops accepting, waits for in-flight requests to finish.
  void Stop();

  // Used by the CivetWeb callback.
  WebHandler& handler() { return handler_; }
  HeapTrimmer& trimmer() { return trimmer_; }

 private:
  WebHandler& handler_;
  HeapTrimmer trimmer_{std::chrono::seconds(1)};
  mg_context* ctx_ = nullptr;
};

// ":9709" -> "0.0.0.0:9709"; rejects what Debian's CivetWeb cannot bind.
[[nodiscard]] Result<std::string> ToCivetPort(const std::string& address);

}  // namespace rnic
