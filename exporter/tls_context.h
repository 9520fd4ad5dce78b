// GnuTLS server credentials and settings for --web.config.file's
// tls_server_config, applied by the exporter to every new session before its
// handshake (libmicrohttpd serves TLS with GnuTLS), so the exporter decides
// versions, cipher suites and client verification.
//
// Certificates change on disk (cert-manager, ACME renewals): on a new
// connection, at most once a second, the cert, key and client CA files are
// stat()ed; when any changed, fresh credentials are built and new sessions
// use them. A rebuild that fails (say, the key written before its
// certificate) keeps the last good credentials and is retried a second later.
#pragma once

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "collectors/common/result.h"
#include "exporter/web_config.h"

typedef struct gnutls_session_int* gnutls_session_t;
typedef struct gnutls_certificate_credentials_st*
    gnutls_certificate_credentials_t;

namespace rnic {

class TlsContext {
 public:
  // Loads and checks everything (files readable, key matching the
  // certificate, priorities GnuTLS accepts); errors name the key:
  // "tls_server_config.key_file: ...".
  [[nodiscard]] static Result<std::unique_ptr<TlsContext>> Create(
      TlsConfig config);
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // The certificate chain and key as loaded at start, PEM: libmicrohttpd
  // wants one pair to start serving TLS (Configure replaces it per session).
  const std::string& cert_pem() const { return cert_pem_; }
  const std::string& key_pem() const { return key_pem_; }
  // The GnuTLS priority string: versions, cipher suites, their order.
  const std::string& priorities() const { return priorities_; }

  // Sets up a new server session before its handshake: the current
  // credentials (rebuilt first when a file changed), and the client
  // certificate request and check of client_auth_type. The session uses the
  // returned credentials: keep them until the session is deinitialised.
  [[nodiscard]] std::shared_ptr<void> Configure(gnutls_session_t session);
  // Rebuilds when a file changed, at most once per second.
  void MaybeReload();
  // Number of successful rebuilds since start (for logs and tests).
  [[nodiscard]] int reloads() const;

 private:
  struct FileStamp {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    timespec mtime{};
    bool operator==(const FileStamp& o) const;
  };
  using Stamps = std::array<FileStamp, 3>;  // cert, key, client CA

  explicit TlsContext(TlsConfig config) : config_(std::move(config)) {}
  Stamps CurrentStamps() const;

  const TlsConfig config_;
  std::string cert_pem_;
  std::string key_pem_;
  std::string priorities_;
  mutable std::mutex mu_;
  std::shared_ptr<void> current_;  // gnutls_certificate_credentials_t
  Stamps stamps_{};                // of the files current_ was built from
  Stamps failed_stamps_{};         // last rebuild that failed (logged once)
  std::chrono::steady_clock::time_point last_check_{};
  int reloads_ = 0;
};

// The GnuTLS priority string for `c`'s versions, cipher suites and order.
[[nodiscard]] std::string TlsPriorities(const TlsConfig& c);

}  // namespace rnic
