// TLS for the address exchange's client (OpenSSL 3): a context built from
// fabric.exchange_tls_config, and connections that verify the peer's
// certificate and name with the same deadlines as the plain client. Only
// built when exchange_scheme is https: OpenSSL's initialisation and
// providers cost MiBs of resident memory that no other exporter should pay.
#pragma once

#include <memory>
#include <string>

#include "collectors/common/result.h"
#include "collectors/fabric/fabric_config.h"
#include "collectors/fabric/http_get.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace rnic::fabric {

class TlsClient {
 public:
  // Loads the CA (or the system's trust store) and the client certificate;
  // errors name the key: "fabric.exchange_tls_config.ca_file: ...".
  [[nodiscard]] static Result<std::unique_ptr<TlsClient>> Create(
      const ExchangeTlsConfig& config);
  ~TlsClient();
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  // A TLS connection over the connected socket `fd` (owned from here on),
  // the handshake done and the certificate checked against server_name or
  // `host`.
  [[nodiscard]] Result<std::unique_ptr<Conn>> Handshake(
      int fd, const std::string& host, Deadline deadline) const;

 private:
  TlsClient(SSL_CTX* ctx, ExchangeTlsConfig config)
      : ctx_(ctx), config_(std::move(config)) {}
  SSL_CTX* ctx_;
  const ExchangeTlsConfig config_;
};

}  // namespace rnic::fabric
