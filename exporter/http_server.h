// CivetWeb plumbing: listening sockets, worker threads, and translation
// between CivetWeb connections and WebHandler requests/responses.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "exporter/heap_trim.h"
#include "exporter/tls_context.h"
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
  // a free port. Returns the bound "ip:port" strings. With `tls` (owned by
  // the caller, outliving the server) every address serves HTTPS only.
  [[nodiscard]] Result<std::vector<std::string>> Start(
      const std::vector<std::string>& addresses, int worker_threads,
      TlsContext* tls = nullptr);
  // Stops accepting, waits for in-flight requests to finish.
  void Stop();

  // Used by the CivetWeb callback.
  WebHandler& handler() { return handler_; }
  HeapTrimmer& trimmer() { return trimmer_; }
  TlsContext* tls() { return tls_; }

 private:
  WebHandler& handler_;
  HeapTrimmer trimmer_{std::chrono::seconds(1)};
  mg_context* ctx_ = nullptr;
  TlsContext* tls_ = nullptr;
};

// CivetWeb serves each connection on one worker thread, from the first byte
// of a request to the end of its keep-alive wait, so the thread count is what
// makes --web.max-requests reachable: `max_requests` scrapes plus spare
// threads for the 503 answers beyond the limit, /-/healthy, idle keep-alive
// connections and slow clients. A limit of 0 (no 503) still gets a bounded
// pool; connections beyond the pool wait in CivetWeb's accept queue.
inline constexpr int kSpareWorkerThreads = 8;
// Request line plus headers above this get 431 (Go's servers allow far
// more; a scraper sends a few hundred bytes).
inline constexpr std::size_t kMaxRequestHeadBytes = 8192;
inline constexpr int kUnlimitedWorkerThreads = 64;
// Each worker costs about 16 KiB resident (request buffer, touched stack) and
// a stack's address space, so a limit above this is a typo, not a plan.
inline constexpr int kMaxRequestsCeiling = 1024;
[[nodiscard]] Result<int> WorkerThreadsFor(int max_requests);

// ":9709" -> "0.0.0.0:9709"; rejects what Debian's CivetWeb cannot bind.
[[nodiscard]] Result<std::string> ToCivetPort(const std::string& address);

}  // namespace rnic
