// The address exchange's client as fabric: configures it: plain HTTP, or
// HTTPS (tls_client) for peers whose exporters serve TLS, with a basic auth
// header when exchange_basic_auth is set. The password is read from its file
// at every exchange (rotations need no restart) and never logged.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "collectors/common/result.h"
#include "collectors/fabric/fabric_config.h"
#include "collectors/fabric/http_get.h"
#include "collectors/fabric/tls_client.h"

namespace rnic::fabric {

class ExchangeClient : public std::enable_shared_from_this<ExchangeClient> {
 public:
  // Checks what start-up can: the TLS files load (only with https: OpenSSL
  // is touched nowhere else) and the password file is readable. Errors name
  // the key.
  [[nodiscard]] static Result<std::shared_ptr<ExchangeClient>> Create(
      const FabricConfig& config);

  // Body of a 200 answer to GET path, as HttpGetBody.
  [[nodiscard]] Result<std::string> Get(
      const std::string& host, int port, const std::string& path,
      std::chrono::milliseconds timeout) const;

  // Bound to this client, for EngineDeps::http_get.
  [[nodiscard]] HttpGet AsHttpGet() const;

 private:
  ExchangeClient() = default;
  std::unique_ptr<TlsClient> tls_;  // null: plain HTTP
  std::optional<ExchangeBasicAuth> auth_;
};

// "Authorization: Basic <base64(user:password)>\r\n".
[[nodiscard]] std::string BasicAuthHeader(const std::string& username,
                                          const std::string& password);
// The file's content without surrounding white space (as Prometheus reads
// password_file); the error names `key` and the path, never the content.
[[nodiscard]] Result<std::string> ReadPasswordFile(const std::string& path,
                                                   const std::string& key);

}  // namespace rnic::fabric
