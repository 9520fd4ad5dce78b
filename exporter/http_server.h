// The exporter's HTTP(S) server on libmicrohttpd: one event-loop thread per
// listen address reads requests and writes responses (epoll, non-blocking),
// so a slow client costs a socket and a little memory, never a thread; the
// work of a request runs on a WorkerPool, the event loop waiting for
// nothing. Translation between libmicrohttpd and WebHandler's requests and
// responses, connection limits and header deadlines live here.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "collectors/common/result.h"
#include "exporter/heap_trim.h"
#include "exporter/tls_context.h"
#include "exporter/web_handler.h"
#include "exporter/worker_pool.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace rnic {

// Scrapes (the telemetry path, collector endpoints) run on a pool of
// --web.max-requests + kSpareWorkerThreads threads, so the 503 beyond the
// limit finds one; a limit of 0 (no 503) still gets a bounded pool.
inline constexpr int kSpareWorkerThreads = 8;
inline constexpr int kUnlimitedWorkerThreads = 64;
// A parallel scrape's thread costs about 16 KiB resident (touched stack,
// buffers), so a limit above this is a typo, not a plan.
inline constexpr int kMaxRequestsCeiling = 1024;
// Every other path (/-/healthy, /-/ready, /, 404s) has threads of its own,
// which scrapes cannot occupy.
inline constexpr int kOtherWorkerThreads = 2;
[[nodiscard]] Result<int> WorkerThreadsFor(int max_requests);

// Request line plus headers above this, or more headers than that, get 431
// (a scraper sends a few hundred bytes in a handful of headers).
inline constexpr std::size_t kMaxRequestHeadBytes = 8192;
inline constexpr unsigned kMaxRequestHeaders = 64;
// What libmicrohttpd holds per connection for a request's head and a
// response's headers; a head that does not fit gets its own 431.
inline constexpr std::size_t kConnectionMemory = 16 * 1024;
// Open connections per listen address, and per client address within them:
// the connection beyond either is closed at once. A Prometheus holds one
// per target; the limit per client keeps one host from taking them all,
// and is never below the worker threads, so one client's parallel scrapes
// still reach the 503 of --web.max-requests.
inline constexpr unsigned kMaxConnections = 512;
inline constexpr unsigned kMinConnectionsPerClient = 32;
struct ConnectionLimits {
  unsigned total;
  unsigned per_client;
};
[[nodiscard]] ConnectionLimits ConnectionLimitsFor(int worker_threads);
// A connection's first request line and headers (and, with TLS, the
// handshake) must be complete within kHeaderTimeout of its accept, later
// ones within kIdleTimeout of the previous response, however steadily they
// trickle in. A connection where nothing moves for kIdleTimeout is closed:
// an idle keep-alive (20 s keeps a 15 s scrape interval's connection and
// closes well before a 30 s scraper reuses it, so a close never races the
// next request) or a response nobody reads.
inline constexpr auto kHeaderTimeout = std::chrono::seconds(10);
inline constexpr auto kIdleTimeout = std::chrono::seconds(20);

class HttpServer {
 public:
  explicit HttpServer(WebHandler& handler) : handler_(handler) {}
  ~HttpServer() { Stop(); }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on every address (":port", "ip:port", "host:port",
  // "[v6]:port"); port 0 picks a free port. Returns the bound addresses.
  // With `tls` (owned by the caller, outliving the server) every address
  // serves HTTPS only.
  [[nodiscard]] Result<std::vector<std::string>> Start(
      const std::vector<std::string>& addresses, int worker_threads,
      TlsContext* tls = nullptr);
  // Stops accepting, lets in-flight requests finish.
  void Stop();

  // For libmicrohttpd's callbacks (http_server.cc).
  struct Connection;
  struct Request;
  void Opened(MHD_Connection* c, void** socket_context);
  void Closed(void* socket_context);
  void HeadDone(MHD_Connection* c);
  void RequestDone(MHD_Connection* c, bool dispatched);
  // Runs `r` on a worker, the connection suspended meanwhile; false when
  // stopping (the caller answers at once).
  bool Dispatch(MHD_Connection* c, Request* r);
  HeapTrimmer& trimmer() { return trimmer_; }

 private:
  void CutOffSlowHeads();

  WebHandler& handler_;
  HeapTrimmer trimmer_{std::chrono::seconds(1)};
  TlsContext* tls_ = nullptr;
  std::vector<MHD_Daemon*> daemons_;
  std::unique_ptr<WorkerPool> scrapes_;
  std::unique_ptr<WorkerPool> others_;
  // Requests handed to a worker and not yet answered.
  std::atomic<int> answering_{0};

  std::mutex mu_;  // guards what follows
  std::condition_variable wake_;
  std::unordered_set<Connection*> connections_;
  bool stopping_ = false;
  std::thread reaper_;
};

}  // namespace rnic
