// The address exchange's client: one libcurl GET of a peer exporter's
// /fabric/addresses per call, plain HTTP or HTTPS as fabric: configures it
// (CA, client certificate, server name, insecure_skip_verify), with basic
// auth when exchange_basic_auth is set. The password is read from its file
// at every exchange (rotations need no restart) and never logged.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "collectors/common/result.h"
#include "collectors/fabric/fabric_config.h"

namespace rnic::fabric {

// Body of a 200 answer to GET path from host:port within timeout; anything
// else is an error naming host:port and the step that failed. The engine
// takes one of these (EngineDeps::http_get) so tests can answer in-process.
using HttpGet = std::function<Result<std::string>(
    const std::string& host, int port, const std::string& path,
    std::chrono::milliseconds timeout)>;

// Larger answers are cut off and are an error: a peer's address list is a
// few hundred bytes.
inline constexpr std::size_t kMaxExchangeAnswer = 1 << 20;

class ExchangeClient : public std::enable_shared_from_this<ExchangeClient> {
 public:
  // Checks what start-up can: with https, libcurl loads the CA, client
  // certificate and key (a transfer that stops before any network I/O); the
  // password file is readable. Errors name the key.
  [[nodiscard]] static Result<std::shared_ptr<ExchangeClient>> Create(
      const FabricConfig& config);

  // `timeout` bounds the whole transfer: connect, TLS handshake, answer.
  [[nodiscard]] Result<std::string> Get(
      const std::string& host, int port, const std::string& path,
      std::chrono::milliseconds timeout) const;

  // Bound to this client, for EngineDeps::http_get.
  [[nodiscard]] HttpGet AsHttpGet() const;

 private:
  ExchangeClient() = default;
  bool https_ = false;
  ExchangeTlsConfig tls_;
  std::optional<ExchangeBasicAuth> auth_;
};

// The file's content without surrounding white space (as Prometheus reads
// password_file); the error names `key` and the path, never the content.
[[nodiscard]] Result<std::string> ReadPasswordFile(const std::string& path,
                                                   const std::string& key);

}  // namespace rnic::fabric
