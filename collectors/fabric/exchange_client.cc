#include "collectors/fabric/exchange_client.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "collectors/common/bounded_file.h"

namespace rnic::fabric {
namespace {

const std::string kTlsKey = "fabric.exchange_tls_config";
const std::string kPasswordKey = "fabric.exchange_basic_auth.password_file";

struct EasyCleanup {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
using Easy = std::unique_ptr<CURL, EasyCleanup>;
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistFree>;

// curl_global_init() before the first handle, once: it is not thread-safe
// on every libcurl build, and the engine and /probe run on several threads.
Result<Easy> NewEasy() {
  static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (init != CURLE_OK)
    return Error{std::string("libcurl: ") + curl_easy_strerror(init)};
  Easy h(curl_easy_init());
  if (!h) return Error{"libcurl: cannot create a transfer"};
  return h;
}

// An IPv6 literal goes into a URL in brackets.
std::string UrlHost(const std::string& host) {
  return host.find(':') == std::string::npos ? host : "[" + host + "]";
}

// The answer's body, cut off at kMaxExchangeAnswer.
struct Body {
  std::string data;
  bool too_large = false;
};

std::size_t OnData(char* p, std::size_t, std::size_t n, void* user) {
  auto* b = static_cast<Body*>(user);
  if (b->data.size() + n > kMaxExchangeAnswer) {
    b->too_large = true;
    return 0;  // aborts the transfer: CURLE_WRITE_ERROR
  }
  b->data.append(p, n);
  return n;
}

// Sets options on a transfer until libcurl refuses one; rc says which.
struct Setter {
  CURL* h;
  CURLcode rc = CURLE_OK;
  template <typename T>
  void operator()(CURLoption o, T v) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(h, o, v);
  }
};

// Options every transfer shares; the TLS ones only with https.
void Configure(Setter& set, bool https, const ExchangeTlsConfig& tls,
               char* errbuf) {
  set(CURLOPT_ERRORBUFFER, errbuf);
  // Timeouts without SIGALRM: the exchange runs on the engine's thread.
  set(CURLOPT_NOSIGNAL, 1L);
  // Peers' exporters are reached directly, whatever http_proxy says.
  set(CURLOPT_PROXY, "");
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  // A Content-Length above the limit fails before the body is read.
  set(CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(kMaxExchangeAnswer));
  if (!https) return;
  // As the exporter's own server: TLS 1.2 at least.
  set(CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
  if (tls.insecure_skip_verify) {
    set(CURLOPT_SSL_VERIFYPEER, 0L);
    set(CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!tls.ca_file.empty()) {
    set(CURLOPT_CAINFO, tls.ca_file.c_str());
  }
  if (!tls.cert_file.empty()) {
    set(CURLOPT_SSLCERT, tls.cert_file.c_str());
    set(CURLOPT_SSLKEY, tls.key_file.c_str());
  }
}

// libcurl reads the files itself: each must be a regular file of PEM size.
Status Readable(const std::string& path, const std::string& key) {
  Status st = CheckBoundedFile(path, kPemFileLimit);
  if (st) return st;
  const Error& e = st.error();
  if (e.errno_value != 0)
    return Error::FromErrno(key + ": cannot load '" + path + "'",
                            e.errno_value);
  return Error{key + ": " + e.message};
}

// libcurl loads the CA, the client certificate and its key when a TLS
// connection starts. A transfer to a listener on 127.0.0.1 that accepts and
// closes gets that far and then fails: the files' own errors, checked by
// the library and options of the real exchanges, without a peer.
Status CheckTlsFiles(const ExchangeTlsConfig& tls) {
  if (!tls.insecure_skip_verify && !tls.ca_file.empty()) {
    if (auto s = Readable(tls.ca_file, kTlsKey + ".ca_file"); !s) return s;
  }
  if (!tls.cert_file.empty()) {
    if (auto s = Readable(tls.cert_file, kTlsKey + ".cert_file"); !s) return s;
    if (auto s = Readable(tls.key_file, kTlsKey + ".key_file"); !s) return s;
  }
  auto h = NewEasy();
  if (!h) return Error{kTlsKey + ": " + h.error().message};
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&a), len) ||
      listen(listener, 1) ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len)) {
    const int err = errno;
    if (listener >= 0) close(listener);
    return Error::FromErrno(kTlsKey + ": checking the files on 127.0.0.1", err);
  }
  std::thread closer([listener] {
    if (const int c = accept(listener, nullptr, nullptr); c >= 0) close(c);
  });
  char errbuf[CURL_ERROR_SIZE] = "";
  Setter set{h->get()};
  Configure(set, true, tls, errbuf);
  const std::string url =
      "https://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/";
  set(CURLOPT_URL, url.c_str());
  set(CURLOPT_TIMEOUT_MS, 5000L);
  CURLcode rc = set.rc;
  if (rc == CURLE_OK) rc = curl_easy_perform(h->get());
  shutdown(listener, SHUT_RDWR);  // wakes accept() if libcurl never came
  closer.join();
  close(listener);
  const std::string why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  switch (rc) {
    case CURLE_SSL_CACERT_BADFILE:
      if (tls.ca_file.empty())
        return Error{kTlsKey +
                     ": cannot load the system's CA certificates: " + why};
      return Error{kTlsKey + ".ca_file: cannot load '" + tls.ca_file +
                   "': " + why};
    case CURLE_SSL_CERTPROBLEM:
      return Error{kTlsKey + ".cert_file, key_file: cannot load '" +
                   tls.cert_file + "', '" + tls.key_file + "': " + why};
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_CIPHER:
    case CURLE_NOT_BUILT_IN:
    case CURLE_UNKNOWN_OPTION:
      return Error{kTlsKey + ": " + why};
    default:
      // The closed connection: everything before the handshake worked.
      return Status::Ok();
  }
}

// Which part of the exchange `rc` stopped: libcurl's code where it says,
// else how far the transfer got.
std::string Step(CURLcode rc, CURL* h, bool https) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "resolve";
    case CURLE_COULDNT_CONNECT:
      return "connect";
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
      return "TLS handshake";
    default:
      break;
  }
  curl_off_t connected = 0, handshaken = 0;
  curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
  curl_easy_getinfo(h, CURLINFO_APPCONNECT_TIME_T, &handshaken);
  if (connected == 0) return "connect";
  if (https && handshaken == 0) return "TLS handshake";
  return "answer";
}

// What the operator can change when the error points at a setting.
std::string Hint(CURLcode rc, const std::string& step, bool https,
                 const ExchangeTlsConfig& tls, const std::string& why) {
  if (!https && (rc == CURLE_GOT_NOTHING || rc == CURLE_WEIRD_SERVER_REPLY ||
                 rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_RECV_ERROR))
    return " (does the peer serve TLS? exchange_scheme: https)";
  if (!https || step == "resolve" || step == "connect" ||
      rc == CURLE_PEER_FAILED_VERIFICATION)
    return "";
  // A plain-HTTP server answers a ClientHello with an error status (OpenSSL:
  // "wrong version number") or, taking it for a malformed request, just
  // closes (SSL_ERROR_SYSCALL); a TLS server that refuses the certificate
  // we sent says so in an alert instead.
  if (why.find("wrong version number") != std::string::npos ||
      (!tls.cert_file.empty() &&
       why.find("SSL_ERROR_SYSCALL") != std::string::npos))
    return " (does the peer serve plain HTTP? exchange_scheme: http)";
  // A server that wants a client certificate it did not get closes the
  // connection, after a TLS 1.3 handshake only once the client reads.
  if (tls.cert_file.empty())
    return " (does the peer require a client certificate? "
           "exchange_tls_config.cert_file)";
  return "";
}

// The error of a failed transfer: host:port, the step, libcurl's words.
Error Failure(const std::string& where, CURLcode rc, CURL* h, bool https,
              const ExchangeTlsConfig& tls, const char* errbuf,
              std::chrono::milliseconds timeout) {
  const std::string step = Step(rc, h, https);
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return Error{where + ": " + step + ": timed out (" +
                 std::to_string(timeout.count()) +
                 " ms for the whole exchange)"};
  }
  long os_errno = 0;
  curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
  if (rc == CURLE_COULDNT_CONNECT && os_errno != 0)
    return Error::FromErrno(where + ": connect", static_cast<int>(os_errno));
  std::string why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  if (rc == CURLE_PEER_FAILED_VERIFICATION)
    why = "certificate verify failed: " + why;
  return Error{where + ": " + step + ": " + why +
               Hint(rc, step, https, tls, why)};
}

}  // namespace

Result<std::string> ReadPasswordFile(const std::string& path,
                                     const std::string& key) {
  // Bounded: /dev/zero or a runaway file is refused, not read to exhaustion.
  auto read = ReadBoundedFile(path, kSecretFileLimit);
  if (!read) {
    const Error& e = read.error();
    if (e.errno_value != 0)
      return Error::FromErrno(key + ": cannot read '" + path + "'",
                              e.errno_value);
    return Error{key + ": " + e.message};
  }
  std::string text = std::move(*read);
  const auto space = " \t\r\n";
  text.erase(0, std::min(text.find_first_not_of(space), text.size()));
  text.erase(text.find_last_not_of(space) + 1);
  if (text.find_first_of("\r\n") != std::string::npos)
    return Error{key + ": '" + path + "' holds more than one line"};
  return text;
}

Result<std::shared_ptr<ExchangeClient>> ExchangeClient::Create(
    const FabricConfig& config) {
  std::shared_ptr<ExchangeClient> c(new ExchangeClient());
  c->https_ = config.exchange_https;
  c->tls_ = config.exchange_tls;
  if (c->https_) {
    if (auto s = CheckTlsFiles(c->tls_); !s) return s.error();
  }
  if (config.exchange_basic_auth) {
    auto p = ReadPasswordFile(config.exchange_basic_auth->password_file,
                              kPasswordKey);
    if (!p) return p.error();
    c->auth_ = config.exchange_basic_auth;
  }
  return c;
}

Result<std::string> ExchangeClient::Get(
    const std::string& host, int port, const std::string& path,
    std::chrono::milliseconds timeout) const {
  const std::string where = UrlHost(host) + ":" + std::to_string(port);
  std::string password;
  if (auth_) {
    auto p = ReadPasswordFile(auth_->password_file, kPasswordKey);
    if (!p) return p.error();
    password = std::move(*p);
  }
  auto h = NewEasy();
  if (!h) return Error{where + ": " + h.error().message};
  char errbuf[CURL_ERROR_SIZE] = "";
  Setter set{h->get()};
  Configure(set, https_, tls_, errbuf);
  // server_name is what the certificate is checked against (and the SNI):
  // the URL names it, and CONNECT_TO sends the connection to the peer.
  std::string url_host = host;
  Slist connect_to;
  if (https_ && !tls_.server_name.empty() && tls_.server_name != host) {
    url_host = tls_.server_name;
    const std::string p = ":" + std::to_string(port);
    connect_to.reset(curl_slist_append(
        nullptr, (UrlHost(url_host) + p + ":" + UrlHost(host) + p).c_str()));
    set(CURLOPT_CONNECT_TO, connect_to.get());
  }
  const std::string url = std::string(https_ ? "https://" : "http://") +
                          UrlHost(url_host) + ":" + std::to_string(port) + path;
  set(CURLOPT_URL, url.c_str());
  // One deadline for the whole exchange (connect, TLS handshake, answer):
  // a host that is down must not hold the probe loop longer.
  set(CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  Body body;
  set(CURLOPT_WRITEFUNCTION, OnData);
  set(CURLOPT_WRITEDATA, &body);
  if (auth_) {
    set(CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    set(CURLOPT_USERNAME, auth_->username.c_str());
    set(CURLOPT_PASSWORD, password.c_str());
  }
  if (set.rc != CURLE_OK)
    return Error{where + ": libcurl: " + curl_easy_strerror(set.rc)};
  const CURLcode rc = curl_easy_perform(h->get());
  if (body.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
    return Error{where + ": answer: larger than " +
                 std::to_string(kMaxExchangeAnswer) + " bytes"};
  }
  if (rc != CURLE_OK)
    return Failure(where, rc, h->get(), https_, tls_, errbuf, timeout);
  long status = 0;
  curl_easy_getinfo(h->get(), CURLINFO_RESPONSE_CODE, &status);
  if (status != 200)
    return Error{where + ": HTTP status " + std::to_string(status)};
  return std::move(body.data);
}

HttpGet ExchangeClient::AsHttpGet() const {
  return [self = shared_from_this()](const std::string& host, int port,
                                     const std::string& path,
                                     std::chrono::milliseconds timeout) {
    return self->Get(host, port, path, timeout);
  };
}

}  // namespace rnic::fabric
