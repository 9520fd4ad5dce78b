// The OpenSSL 3 server context for --web.config.file's tls_server_config,
// built here and handed to CivetWeb (its external_ssl_ctx callback), so the
// exporter, not CivetWeb's OpenSSL 1.1-era setup, decides versions, ciphers
// and client verification.
//
// Certificates change on disk (cert-manager, ACME renewals): on a new
// connection, at most once a second, the cert, key and client CA files are
// stat()ed; when any changed, a fresh SSL_CTX is built and the handshake
// switches to it (SSL_set_SSL_CTX from the ClientHello callback). A rebuild
// that fails (say, the key written before its certificate) keeps the last
// good context and is retried a second later.
#pragma once

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "collectors/common/result.h"
#include "exporter/web_config.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace rnic {

class TlsContext {
 public:
  // Loads and checks everything (files readable, key matching the
  // certificate); errors name the key: "tls_server_config.key_file: ...".
  [[nodiscard]] static Result<std::unique_ptr<TlsContext>> Create(
      TlsConfig config);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // The context CivetWeb creates its connections from; owned here.
  SSL_CTX* initial() const { return initial_; }
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
  static int OnClientHello(SSL* ssl, int* alert, void* arg);

  const TlsConfig config_;
  SSL_CTX* initial_ = nullptr;
  mutable std::mutex mu_;
  SSL_CTX* current_ = nullptr;  // one reference held here
  Stamps stamps_{};             // of the files current_ was built from
  Stamps failed_stamps_{};      // last rebuild that failed (logged once)
  std::chrono::steady_clock::time_point last_check_{};
  int reloads_ = 0;
};

}  // namespace rnic
