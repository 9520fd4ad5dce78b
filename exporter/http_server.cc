#include "exporter/http_server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netdb.h>

#include <cstring>

#include "collectors/common/host_port.h"

namespace rnic {
namespace {

// Bytes of the request line and headers as sent (give or take the
// separators CivetWeb has already stripped).
std::size_t RequestHeadBytes(const mg_request_info* ri) {
  auto len = [](const char* s) { return s ? std::strlen(s) : 0; };
  std::size_t n = len(ri->request_method) + len(ri->request_uri) +
                  len(ri->query_string) + len(ri->http_version) + 12;
  for (int i = 0; i < ri->num_headers; ++i) {
    n += len(ri->http_headers[i].name) + len(ri->http_headers[i].value) + 4;
  }
  return n;
}

// Access is decided in HandleRequest (basic_auth_users of --web.config.file).
// Without an authorization handler CivetWeb looks for a .htpasswd file in
// the (unset) document root on every request: a stat() per scrape.
int AllowAll(mg_connection* /*conn*/, void* /*cbdata*/) { return 1; }

int HandleRequest(mg_connection* conn, void* cbdata) {
  auto* server = static_cast<HttpServer*>(cbdata);
  const mg_request_info* ri = mg_get_request_info(conn);
  // CivetWeb itself can only answer 400 (above max_request_size); below that
  // buffer an oversized head gets the status that names the problem. It
  // keeps MG_MAX_HEADERS headers and drops the rest unseen: a full table may
  // hide any number more, so it counts as too large as well.
  if (RequestHeadBytes(ri) > kMaxRequestHeadBytes ||
      ri->num_headers >= MG_MAX_HEADERS) {
    static constexpr char kBody[] = "request headers too large\n";
    mg_response_header_start(conn, 431);
    mg_response_header_add(conn, "Content-Type", "text/plain", -1);
    mg_response_header_add(conn, "Content-Length",
                           std::to_string(sizeof kBody - 1).c_str(), -1);
    mg_response_header_send(conn);
    mg_write(conn, kBody, sizeof kBody - 1);
    return 431;
  }
  // Runs after `resp` below is destroyed: the scrape's memory is free then.
  struct TrimOnReturn {
    HeapTrimmer& t;
    ~TrimOnReturn() { t.MaybeTrim(); }
  } trim_on_return{server->trimmer()};
  HttpRequest req;
  req.method = ri->request_method ? ri->request_method : "";
  req.path = ri->local_uri ? ri->local_uri : "/";
  req.query = ri->query_string ? ri->query_string : "";
  auto header = [conn](const char* name) {
    const char* v = mg_get_header(conn, name);
    return v ? std::string(v) : std::string();
  };
  req.accept = header("Accept");
  req.accept_encoding = header("Accept-Encoding");
  req.scrape_timeout = header("X-Prometheus-Scrape-Timeout-Seconds");
  req.authorization = header("Authorization");
  HttpResponse resp = server->handler().Handle(req);

  // CivetWeb writes the status line, Date and Connection (keep-alive by its
  // own rule) around these headers.
  mg_response_header_start(conn, resp.status);
  mg_response_header_add(conn, "Content-Type", resp.content_type.c_str(), -1);
  mg_response_header_add(conn, "Content-Length",
                         std::to_string(resp.body.size()).c_str(), -1);
  for (const auto& [name, value] : resp.headers) {
    mg_response_header_add(conn, name.c_str(), value.c_str(), -1);
  }
  mg_response_header_send(conn);
  if (req.method != "HEAD" && !resp.body.empty()) {
    mg_write(conn, resp.body.data(), resp.body.size());
  }
  return resp.status;
}

int LogMessage(const mg_connection*, const char* message) {
  // CivetWeb's own messages (bind errors, ...) go through spdlog at debug;
  // the failures that matter are reported by Start().
  (void)message;
  return 1;
}

// CivetWeb asks for its SSL_CTX at start (*ssl_ctx null) and offers it back
// when it stops: both times the context is the TlsContext's, which owns it.
int ExternalSslCtx(void** ssl_ctx, void* user_data) {
  auto* server = static_cast<HttpServer*>(user_data);
  if (*ssl_ctx == nullptr) *ssl_ctx = server->tls()->initial();
  return 1;
}

}  // namespace

Result<std::string> ToCivetPort(const std::string& address) {
  auto hp = ParseHostPort(address);
  if (!hp.ok()) {
    return Error{"--web.listen-address " + address + ": " + hp.error().message};
  }
  if (hp->bracketed) {
    if (!mg_check_feature(MG_FEATURES_IPV6)) {
      return Error{"--web.listen-address " + address +
                   ": this CivetWeb build has no IPv6 support (Debian 12's "
                   "libcivetweb is IPv4-only); use an IPv4 address"};
    }
    return address;
  }
  if (!hp->port) {
    return Error{"--web.listen-address " + address +
                 ": expected host:port or :port"};
  }
  const std::string& host = hp->host;
  const std::string port = std::to_string(*hp->port);
  if (host.empty()) return "0.0.0.0:" + port;
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) == 1) return host + ":" + port;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
    return Error{"--web.listen-address " + address + ": cannot resolve '" +
                 host + "'"};
  }
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr,
            buf, sizeof buf);
  freeaddrinfo(res);
  return std::string(buf) + ":" + port;
}

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

Result<std::vector<std::string>> HttpServer::Start(
    const std::vector<std::string>& addresses, int worker_threads,
    TlsContext* tls) {
  tls_ = tls;
  std::string ports;
  for (const auto& a : addresses) {
    auto p = ToCivetPort(a);
    if (!p.ok()) return p.error();
    if (!ports.empty()) ports += ',';
    ports += p.value();
    if (tls_ != nullptr) ports += 's';  // CivetWeb's suffix for HTTPS
  }
  if (tls_ != nullptr) {
    // CivetWeb loads OpenSSL itself (dlopen of libssl.so, see
    // tls_civetweb_shim.c); without it every handshake would fail later.
    if ((mg_init_library(MG_FEATURES_SSL) & MG_FEATURES_SSL) == 0) {
      mg_exit_library();
      return Error{
          "--web.config.file: TLS: CivetWeb cannot load OpenSSL (libssl.so "
          "from the exporter's private library directory, "
          "lib/rnic-exporter)"};
    }
  } else {
    mg_init_library(0);
  }
  const std::string threads =
      std::to_string(worker_threads < 1 ? 1 : worker_threads);
  const char* opts[] = {
      "listening_ports", ports.c_str(), "num_threads", threads.c_str(),
      // Request line and headers share this buffer; a request that does not
      // fit is answered 400 and closed (CivetWeb 1.15 reports it as a
      // malformed message: its 413 path is unreachable). Between
      // kMaxRequestHeadBytes and this, HandleRequest answers 431.
      "max_request_size", "16384",
      // Total time to receive a request's line and headers (CivetWeb 1.15
      // measures it from the request's start, so a client trickling bytes is
      // cut off too), and also the time a response write may stall. A scrape
      // nobody reads for 10 s is past Prometheus' default timeout anyway.
      "request_timeout_ms", "10000",
      // An idle keep-alive connection holds a worker thread. 20 s keeps a
      // 15 s scrape interval's connection and closes well before a 30 s or
      // 1 m scraper reuses it, so a close never races the next request.
      "enable_keep_alive", "yes", "keep_alive_timeout_ms", "20000",
      // linger_timeout_ms stays unset: with it, close() blocks a worker on a
      // client that does not read.
      // CivetWeb sends each header line in its own segment, then the body:
      // with Nagle on, a small gzip body on a kept-alive connection waited
      // for the client's delayed ACK (40 ms per scrape).
      "tcp_nodelay", "1", nullptr};
  mg_callbacks cb{};
  cb.log_message = LogMessage;
  if (tls_ != nullptr) cb.external_ssl_ctx = ExternalSslCtx;
  mg_init_data init{};
  init.callbacks = &cb;
  init.user_data = this;
  init.configuration_options = opts;
  mg_error_data err{};
  char errbuf[256] = {};
  err.text = errbuf;
  err.text_buffer_size = sizeof errbuf;
  ctx_ = mg_start2(&init, &err);
  if (ctx_ == nullptr) {
    return Error{"cannot listen on " + ports + ": " + errbuf};
  }
  mg_set_request_handler(ctx_, "/", HandleRequest, this);
  mg_set_auth_handler(ctx_, "/", AllowAll, nullptr);
  std::vector<std::string> bound;
  mg_server_port sp[16];
  int n = mg_get_server_ports(ctx_, 16, sp);
  // mg_server_port has no address; pair each with the configured host.
  std::vector<std::string> hosts;
  for (const auto& a : addresses) {
    auto p = ToCivetPort(a).value();
    hosts.push_back(p.substr(0, p.rfind(':')));
  }
  for (int i = 0; i < n; ++i) {
    std::string host =
        i < static_cast<int>(hosts.size()) ? hosts[i] : "0.0.0.0";
    bound.push_back(host + ":" + std::to_string(sp[i].port));
  }
  return bound;
}

void HttpServer::Stop() {
  if (ctx_ != nullptr) {
    mg_stop(ctx_);  // joins worker threads: in-flight scrapes finish first
    ctx_ = nullptr;
    mg_exit_library();
  }
}

}  // namespace rnic
