#include "collectors/fabric/tls_client.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace rnic::fabric {
namespace {

const std::string kKey = "fabric.exchange_tls_config";
// After a TLS 1.3 handshake, a server that wanted a client certificate it
// did not get (or did not trust) closes the connection: the client's first
// write or read fails with no OpenSSL error of its own.
constexpr const char* kClosed =
    "connection closed by the peer (does it require a client certificate? "
    "exchange_tls_config.cert_file)";

// The oldest queued OpenSSL error (the cause, not its consequences); the
// queue is left empty for the next call on this thread.
std::string OpenSslError(const char* fallback) {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return fallback;
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

bool IsIpAddress(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

class TlsConn final : public Conn {
 public:
  TlsConn(SSL* ssl, int fd) : ssl_(ssl), fd_(fd) {}
  ~TlsConn() override {
    SSL_free(ssl_);
    close(fd_);
  }

  // Runs `op` until it succeeds, waiting for the socket as OpenSSL asks.
  // Returns op's result (> 0) or the SSL_get_error() code of its failure.
  template <typename Op>
  Result<int> Drive(Op op, Deadline deadline, const char* what) {
    for (;;) {
      ERR_clear_error();
      const int r = op();
      if (r > 0) return r;
      const int e = SSL_get_error(ssl_, r);
      short events = 0;
      if (e == SSL_ERROR_WANT_READ) events = POLLIN;
      if (e == SSL_ERROR_WANT_WRITE) events = POLLOUT;
      if (events == 0) return -e;
      pollfd p{fd_, events, 0};
      if (poll(&p, 1, MsLeft(deadline)) != 1)
        return Error{std::string(what) + " timed out"};
    }
  }

  Status SendAll(std::string_view data, Deadline deadline) override {
    std::size_t sent = 0;
    while (sent < data.size()) {
      auto n = Drive(
          [&] {
            return SSL_write(ssl_, data.data() + sent,
                             static_cast<int>(data.size() - sent));
          },
          deadline, "send");
      if (!n) return n.error();
      if (*n < 0) return Error{"TLS send: " + OpenSslError(kClosed)};
      sent += static_cast<std::size_t>(*n);
    }
    return Status::Ok();
  }

  Result<std::size_t> Recv(char* buf, std::size_t size,
                           Deadline deadline) override {
    auto n = Drive([&] { return SSL_read(ssl_, buf, static_cast<int>(size)); },
                   deadline, "answer");
    if (!n) return n.error();
    if (*n > 0) return static_cast<std::size_t>(*n);
    if (-*n == SSL_ERROR_ZERO_RETURN) return std::size_t{0};
    // A server that asked for a client certificate it did not get says so
    // with an alert after a TLS 1.3 handshake: it shows up here.
    return Error{"TLS receive: " + OpenSslError(kClosed)};
  }

  Status Connect(Deadline deadline) {
    auto r =
        Drive([&] { return SSL_connect(ssl_); }, deadline, "TLS handshake");
    if (!r) return r.error();
    if (*r > 0) return Status::Ok();
    const long v = SSL_get_verify_result(ssl_);
    if (v != X509_V_OK) {
      ERR_clear_error();
      return Error{std::string("TLS handshake: certificate verify failed: ") +
                   X509_verify_cert_error_string(v)};
    }
    return Error{"TLS handshake: " +
                 OpenSslError("connection closed by the peer")};
  }

 private:
  SSL* ssl_;
  int fd_;
};

}  // namespace

Result<std::unique_ptr<TlsClient>> TlsClient::Create(
    const ExchangeTlsConfig& config) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr)
    return Error{kKey + ": " + OpenSslError("cannot create a TLS context")};
  std::unique_ptr<TlsClient> client(new TlsClient(ctx, config));
  // As the exporter's server: TLS 1.2 at least.
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // HTTP/1.0 with Connection: close ends at the close; exporters (CivetWeb)
  // close without a close_notify.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  if (!config.insecure_skip_verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!config.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx, config.ca_file.c_str(), nullptr) !=
          1) {
        return Error{kKey + ".ca_file: cannot load '" + config.ca_file +
                     "': " + OpenSslError("no certificate")};
      }
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return Error{kKey + ": cannot load the system's CA certificates: " +
                   OpenSslError("failed")};
    }
  }
  if (!config.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) !=
        1) {
      return Error{kKey + ".cert_file: cannot load '" + config.cert_file +
                   "': " + OpenSslError("no certificate")};
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(),
                                    SSL_FILETYPE_PEM) != 1) {
      return Error{kKey + ".key_file: cannot load '" + config.key_file +
                   "': " + OpenSslError("no key")};
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      return Error{kKey + ".key_file: does not match cert_file: " +
                   OpenSslError("mismatch")};
    }
  }
  ERR_clear_error();
  return client;
}

TlsClient::~TlsClient() { SSL_CTX_free(ctx_); }

Result<std::unique_ptr<Conn>> TlsClient::Handshake(int fd,
                                                   const std::string& host,
                                                   Deadline deadline) const {
  SSL* ssl = SSL_new(ctx_);
  if (ssl == nullptr) {
    close(fd);
    return Error{"TLS: " + OpenSslError("cannot create a connection")};
  }
  auto conn = std::make_unique<TlsConn>(ssl, fd);
  SSL_set_fd(ssl, fd);
  const std::string& name =
      config_.server_name.empty() ? host : config_.server_name;
  if (IsIpAddress(name)) {
    // No SNI for addresses (RFC 6066); the certificate's IP SANs are checked.
    if (!config_.insecure_skip_verify &&
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str()) != 1)
      return Error{"TLS: bad address '" + name + "'"};
  } else {
    SSL_set_tlsext_host_name(ssl, name.c_str());
    if (!config_.insecure_skip_verify && SSL_set1_host(ssl, name.c_str()) != 1)
      return Error{"TLS: bad host name '" + name + "'"};
  }
  if (auto s = conn->Connect(deadline); !s) return s.error();
  return std::unique_ptr<Conn>(std::move(conn));
}

}  // namespace rnic::fabric
