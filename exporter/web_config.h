// --web.config.file: the Prometheus exporter-toolkit web configuration (TLS,
// basic auth, extra response headers), same YAML schema. Parsing is pure and
// checks everything that can be checked without OpenSSL; TlsContext then
// loads the files it names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

// exporter-toolkit's client_auth_type values (Go's tls.ClientAuthType).
enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,
  kRequireAnyClientCert,
  kVerifyClientCertIfGiven,
  kRequireAndVerifyClientCert,
};

// Wire values, as OpenSSL's TLS1_2_VERSION / TLS1_3_VERSION.
enum class TlsVersion { kTls12 = 0x0303, kTls13 = 0x0304 };

struct TlsConfig {
  // Paths as given, made absolute against the web config's directory (as
  // exporter-toolkit does).
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // empty: none
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  TlsVersion min_version = TlsVersion::kTls12;
  std::optional<TlsVersion> max_version;
  // OpenSSL names of the TLS 1.2 suites; empty: OpenSSL's defaults. Go
  // ignores cipher_suites for TLS 1.3, and so do we.
  std::vector<std::string> openssl_ciphers;
  bool prefer_server_cipher_suites = true;
};

struct WebConfig {
  std::optional<TlsConfig> tls;  // nullopt: plain HTTP
  // User -> bcrypt hash, in file order. Empty: no authentication.
  std::vector<std::pair<std::string, std::string>> users;
  // Extra response headers, canonical names.
  std::vector<std::pair<std::string, std::string>> headers;
};

// Parses the file at `path`. Errors name the file and the key:
// "/etc/web.yml: tls_server_config.min_version: ...".
[[nodiscard]] Result<WebConfig> LoadWebConfig(const std::string& path);
// The same for YAML text; relative paths are resolved against `base_dir`.
[[nodiscard]] Result<WebConfig> ParseWebConfig(const std::string& text,
                                               const std::string& base_dir);

// Go's name of a TLS 1.2 cipher suite -> OpenSSL's; nullopt when unknown
// here. TLS 1.3 names map to "" (accepted, not configurable).
[[nodiscard]] std::optional<std::string> OpenSslCipherName(
    std::string_view go_name);

}  // namespace rnic
