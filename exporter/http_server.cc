#include "exporter/http_server.h"

#include <fcntl.h>
#include <microhttpd.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>

#include "exporter/listen_socket.h"

namespace rnic {

struct HttpServer::Connection {
  int fd = -1;
  // While a request's head is awaited: when it must be complete.
  bool awaiting_head = true;
  std::chrono::steady_clock::time_point head_deadline;
  std::shared_ptr<void> tls;  // the credentials its TLS session uses
};

struct HttpServer::Request {
  enum class State { kHead, kReady, kRunning, kDone };
  std::string uri;  // raw, with the query string
  State state = State::kHead;
  bool dispatched = false;  // counted in HttpServer::answering_
  HttpRequest req;
  HttpResponse resp;
};

namespace {

using Clock = std::chrono::steady_clock;

HttpServer* ServerOf(void* cls) { return static_cast<HttpServer*>(cls); }

// Called with the request line: the raw URI is the only place the query
// string is left undecoded, as endpoints want it.
void* LogUri(void*, const char* uri, MHD_Connection*) {
  auto* r = new HttpServer::Request;
  r->uri = uri != nullptr ? uri : "";
  return r;
}

void Completed(void* cls, MHD_Connection* c, void** con_cls,
               MHD_RequestTerminationCode) {
  auto* r = static_cast<HttpServer::Request*>(*con_cls);
  ServerOf(cls)->RequestDone(c, r != nullptr && r->dispatched);
  delete r;
  *con_cls = nullptr;
}

void Notify(void* cls, MHD_Connection* c, void** socket_context,
            MHD_ConnectionNotificationCode code) {
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    ServerOf(cls)->Opened(c, socket_context);
  } else {
    ServerOf(cls)->Closed(*socket_context);
    *socket_context = nullptr;
  }
}

// libmicrohttpd's own messages (a failed handshake, a client gone) go to
// debug: the failures that matter are reported by Start().
void Log(void*, const char* fmt, va_list ap) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::string m(buf);
  while (!m.empty() && m.back() == '\n') m.pop_back();
  spdlog::debug("msg=\"http server\" detail=\"{}\"", m);
}

std::string Header(MHD_Connection* c, const char* name) {
  const char* v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
  return v != nullptr ? v : "";
}

void FillRequest(MHD_Connection* c, const char* url, const char* method,
                 HttpServer::Request& r) {
  r.req.method = method != nullptr ? method : "";
  r.req.path = url != nullptr && *url != '\0' ? url : "/";
  if (auto q = r.uri.find('?'); q != std::string::npos) {
    r.req.query = r.uri.substr(q + 1);
  }
  r.req.accept = Header(c, "Accept");
  r.req.accept_encoding = Header(c, "Accept-Encoding");
  r.req.scrape_timeout = Header(c, "X-Prometheus-Scrape-Timeout-Seconds");
  r.req.authorization = Header(c, "Authorization");
}

bool HeadTooLarge(MHD_Connection* c) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  const int headers =
      MHD_get_connection_values(c, MHD_HEADER_KIND, nullptr, nullptr);
  return (info != nullptr && info->header_size > kMaxRequestHeadBytes) ||
         headers > static_cast<int>(kMaxRequestHeaders);
}

// Paths that must answer while scrapes are slow: their own threads.
bool Light(const std::string& path) {
  return path == "/-/healthy" || path == "/-/ready" || path == "/";
}

// A response body, and what to do once libmicrohttpd has sent it.
struct Body {
  std::string text;
  HeapTrimmer* trimmer;
};

MHD_Result Queue(MHD_Connection* c, HttpResponse& resp, HeapTrimmer& trimmer) {
  auto* body = new Body{std::move(resp.body), &trimmer};
  MHD_Response* m = MHD_create_response_from_buffer_with_free_callback_cls(
      body->text.size(), body->text.data(),
      [](void* p) {
        auto* b = static_cast<Body*>(p);
        HeapTrimmer* t = b->trimmer;
        delete b;
        // The last of the scrape's memory is free now.
        t->MaybeTrim();
      },
      body);
  if (m == nullptr) {
    delete body;
    return MHD_NO;
  }
  MHD_add_response_header(m, "Content-Type", resp.content_type.c_str());
  for (const auto& [name, value] : resp.headers) {
    MHD_add_response_header(m, name.c_str(), value.c_str());
  }
  const MHD_Result ret =
      MHD_queue_response(c, static_cast<unsigned>(resp.status), m);
  MHD_destroy_response(m);
  return ret;
}

MHD_Result Access(void* cls, MHD_Connection* c, const char* url,
                  const char* method, const char*, const char*,
                  size_t* upload_data_size, void** con_cls) {
  HttpServer* server = ServerOf(cls);
  auto* r = static_cast<HttpServer::Request*>(*con_cls);
  if (r == nullptr) return MHD_NO;  // LogUri always made one
  using State = HttpServer::Request::State;
  if (r->state == State::kHead) {
    server->HeadDone(c);
    FillRequest(c, url, method, *r);
    r->state = State::kReady;
    if (HeadTooLarge(c)) {
      r->resp.status = 431;
      r->resp.body = "request headers too large\n";
      r->state = State::kDone;
    }
    return MHD_YES;
  }
  if (*upload_data_size != 0) {  // a body: nothing here reads one
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (r->state == State::kReady) {
    r->state = State::kRunning;
    // Stopping: closed unanswered, as if it had come a moment later.
    return server->Dispatch(c, r) ? MHD_YES : MHD_NO;
  }
  if (r->state == State::kRunning) return MHD_YES;  // not resumed yet
  return Queue(c, r->resp, server->trimmer());
}

}  // namespace

Result<int> WorkerThreadsFor(int max_requests) {
  if (max_requests < 0 || max_requests > kMaxRequestsCeiling) {
    return Error{"--web.max-requests=" + std::to_string(max_requests) +
                 ": expected 0 (no limit) to " +
                 std::to_string(kMaxRequestsCeiling) +
                 " (each parallel scrape needs a worker thread)"};
  }
  return (max_requests == 0 ? kUnlimitedWorkerThreads : max_requests) +
         kSpareWorkerThreads;
}

ConnectionLimits ConnectionLimitsFor(int worker_threads) {
  const unsigned per_client =
      std::max(kMinConnectionsPerClient,
               static_cast<unsigned>(std::max(worker_threads, 0)));
  return {std::max(kMaxConnections, per_client), per_client};
}

void HttpServer::Opened(MHD_Connection* c, void** socket_context) {
  auto* conn = new Connection;
  if (const auto* i =
          MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) {
    conn->fd = i->connect_fd;
  }
  conn->head_deadline = Clock::now() + kHeaderTimeout;
  if (tls_ != nullptr) {
    // Before the handshake: the session is set up, no byte is read yet.
    const auto* i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (i != nullptr && i->tls_session != nullptr) {
      conn->tls = tls_->Configure(
          static_cast<gnutls_session_t>(const_cast<void*>(i->tls_session)));
    }
  }
  std::lock_guard lock(mu_);
  connections_.insert(conn);
  *socket_context = conn;
}

void HttpServer::Closed(void* socket_context) {
  auto* conn = static_cast<Connection*>(socket_context);
  if (conn == nullptr) return;
  {
    std::lock_guard lock(mu_);
    connections_.erase(conn);
  }
  delete conn;  // after the session's deinit: its credentials may go
}

void HttpServer::HeadDone(MHD_Connection* c) {
  const auto* i =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (i == nullptr || i->socket_context == nullptr) return;
  std::lock_guard lock(mu_);
  static_cast<Connection*>(i->socket_context)->awaiting_head = false;
}

void HttpServer::RequestDone(MHD_Connection* c, bool dispatched) {
  if (dispatched) answering_.fetch_sub(1);
  const auto* i =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (i == nullptr || i->socket_context == nullptr) return;
  std::lock_guard lock(mu_);
  auto* conn = static_cast<Connection*>(i->socket_context);
  conn->awaiting_head = true;
  conn->head_deadline = Clock::now() + kIdleTimeout;
}

bool HttpServer::Dispatch(MHD_Connection* c, Request* r) {
  WorkerPool& pool = Light(r->req.path) ? *others_ : *scrapes_;
  r->dispatched = pool.Post(
      [this, c, r] {
        r->resp = handler_.Handle(r->req);
        r->state = Request::State::kDone;
        MHD_resume_connection(c);
      },
      // Under the pool's lock: suspended before any worker can resume it.
      [this, c] {
        answering_.fetch_add(1);
        MHD_suspend_connection(c);
      });
  return r->dispatched;
}

void HttpServer::CutOffSlowHeads() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    const auto now = Clock::now();
    for (Connection* conn : connections_) {
      if (conn->awaiting_head && now >= conn->head_deadline && conn->fd >= 0) {
        // The event loop sees the end of the stream and closes the
        // connection; its fd stays open until Closed() has run.
        shutdown(conn->fd, SHUT_RDWR);
        conn->awaiting_head = false;
      }
    }
  }
}

Result<std::vector<std::string>> HttpServer::Start(
    const std::vector<std::string>& addresses, int worker_threads,
    TlsContext* tls) {
  tls_ = tls;
  std::vector<ListenSocket> sockets;
  for (const auto& a : addresses) {
    auto s = OpenListenSocket(a);
    if (!s.ok()) return s.error();
    sockets.push_back(std::move(s).value());
  }
  scrapes_ = std::make_unique<WorkerPool>(
      worker_threads < 1 ? 1 : worker_threads, "rnic-scrape");
  others_ = std::make_unique<WorkerPool>(kOtherWorkerThreads, "rnic-http");
  reaper_ = std::thread([this] { CutOffSlowHeads(); });
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                   MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  if (tls_ != nullptr) flags |= MHD_USE_TLS;
  const ConnectionLimits limits = ConnectionLimitsFor(worker_threads);
  std::vector<std::string> bound;
  for (auto& s : sockets) {
    // The daemon closes its copy when it stops; `sockets` closes the other.
    const int fd = fcntl(s.fd.get(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
      Stop();
      return Error{"cannot listen on " + s.address + ": dup failed", errno};
    }
    const bool v6 = s.address.front() == '[';
    auto fn = [](auto f) { return reinterpret_cast<intptr_t>(f); };
    auto num = [](auto v) { return static_cast<intptr_t>(v); };
    std::vector<MHD_OptionItem> opts = {
        {MHD_OPTION_LISTEN_SOCKET, fd, nullptr},
        {MHD_OPTION_CONNECTION_LIMIT, num(limits.total), nullptr},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, num(limits.per_client), nullptr},
        {MHD_OPTION_CONNECTION_TIMEOUT, num(kIdleTimeout.count()), nullptr},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, num(kConnectionMemory), nullptr},
        {MHD_OPTION_URI_LOG_CALLBACK, fn(&LogUri), this},
        {MHD_OPTION_NOTIFY_COMPLETED, fn(&Completed), this},
        {MHD_OPTION_NOTIFY_CONNECTION, fn(&Notify), this},
    };
    if (tls_ != nullptr) {
      auto text = [](const std::string& t) {
        return const_cast<char*>(t.c_str());
      };
      opts.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, text(tls_->cert_pem())});
      opts.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, text(tls_->key_pem())});
      opts.push_back(
          {MHD_OPTION_HTTPS_PRIORITIES, 0, text(tls_->priorities())});
    }
    opts.push_back({MHD_OPTION_END, 0, nullptr});
    MHD_Daemon* d = MHD_start_daemon(
        flags | (v6 ? MHD_USE_IPv6 : 0), 0, nullptr, nullptr, Access, this,
        // The logger first, or messages about the options go to stderr.
        MHD_OPTION_EXTERNAL_LOGGER, Log, nullptr, MHD_OPTION_ARRAY, opts.data(),
        MHD_OPTION_END);
    if (d == nullptr) {
      close(fd);
      Stop();
      return Error{"cannot listen on " + s.address +
                   ": libmicrohttpd did not start (TLS support missing?)"};
    }
    daemons_.push_back(d);
    bound.push_back(s.address);
  }
  return bound;
}

void HttpServer::Stop() {
  // No new connection; requests in flight finish and resume their
  // connections (one arriving from now on is closed unanswered), and their
  // answers are written before the connections close.
  for (MHD_Daemon* d : daemons_) {
    const MHD_socket listen_fd = MHD_quiesce_daemon(d);
    if (listen_fd != MHD_INVALID_SOCKET) close(listen_fd);
  }
  if (scrapes_) scrapes_->Stop();
  if (others_) others_->Stop();
  const auto give_up = Clock::now() + kIdleTimeout;
  while (answering_.load() > 0 && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (MHD_Daemon* d : daemons_) MHD_stop_daemon(d);
  daemons_.clear();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (reaper_.joinable()) reaper_.join();
}

}  // namespace rnic
