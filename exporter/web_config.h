// --web.config.file: the Prometheus exporter-toolkit web configuration (TLS,
// basic auth, extra response headers), same YAML schema. Parsing is pure and
// checks everything that can be checked without GnuTLS; TlsContext then
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

// Wire values.
enum class TlsVersion { kTls12 = 0x0303, kTls13 = 0x0304 };

// A TLS 1.2 cipher suite by Go's name and the parts GnuTLS's priority
// strings enable one by one: key exchange, cipher, MAC.
struct CipherSuite {
  std::string_view go;
  std::string_view kx;      // "ECDHE-RSA"; "" for a TLS 1.3 suite
  std::string_view cipher;  // "AES-128-GCM"
  std::string_view mac;     // "AEAD", "SHA1"
  bool operator==(const CipherSuite& o) const { return go == o.go; }
};

struct TlsConfig {
  // Paths as given, made absolute against the web config's directory (as
  // exporter-toolkit does).
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // empty: none
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  TlsVersion min_version = TlsVersion::kTls12;
  std::optional<TlsVersion> max_version;
  // The TLS 1.2 suites in the file's order; empty: GnuTLS's defaults. Go
  // ignores TLS 1.3 names, and so do we; GnuTLS also offers TLS 1.3 with the
  // listed ciphers only.
  std::vector<CipherSuite> cipher_suites;
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

// Go's name of a cipher suite -> its parts; nullopt when unknown here.
// TLS 1.3 names have an empty kx (accepted, not configurable).
[[nodiscard]] std::optional<CipherSuite> FindCipherSuite(
    std::string_view go_name);

}  // namespace rnic
