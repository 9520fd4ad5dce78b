#include "exporter/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "collectors/common/bounded_file.h"

namespace rnic {
namespace {

// The session cache is shared by every context the server switches to.
constexpr unsigned char kSessionIdContext[] = "rnic_exporter";

std::string OpenSslError() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

// OpenSSL reads the files itself: each must be a regular file of PEM size,
// not a device or FIFO it would read without end.
Status Readable(const std::string& key, const std::string& path) {
  Status st = CheckBoundedFile(path, kPemFileLimit);
  if (!st)
    return Error{"tls_server_config." + key + " " + st.error().ToString()};
  return Status::Ok();
}

// A key with a passphrase would make OpenSSL prompt on the terminal.
int NoPassphrase(char*, int, int, void*) { return 0; }

// RequestClientCert and RequireAnyClientCert take any certificate.
int AcceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }

Result<SSL_CTX*> Build(const TlsConfig& c, SSL_client_hello_cb_fn hello,
                       void* hello_arg) {
  for (const auto& [key, path] :
       {std::pair<std::string, std::string>{"cert_file", c.cert_file},
        {"key_file", c.key_file},
        {"client_ca_file", c.client_ca_file}}) {
    if (path.empty()) continue;
    Status st = Readable(key, path);
    if (!st.ok()) return st.error();
  }
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return Error{"tls_server_config: " + OpenSslError()};
  auto fail = [ctx](const std::string& what) -> Result<SSL_CTX*> {
    Error e{what + ": " + OpenSslError()};
    SSL_CTX_free(ctx);
    return e;
  };
  SSL_CTX_set_default_passwd_cb(ctx, NoPassphrase);
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
               (c.prefer_server_cipher_suites ? SSL_OP_CIPHER_SERVER_PREFERENCE
                                              : 0));
  if (SSL_CTX_set_min_proto_version(ctx, static_cast<int>(c.min_version)) !=
          1 ||
      (c.max_version && SSL_CTX_set_max_proto_version(
                            ctx, static_cast<int>(*c.max_version)) != 1)) {
    return fail("tls_server_config.min_version/max_version");
  }
  if (!c.openssl_ciphers.empty()) {
    std::string list;
    for (const auto& n : c.openssl_ciphers)
      list += (list.empty() ? "" : ":") + n;
    if (SSL_CTX_set_cipher_list(ctx, list.c_str()) != 1) {
      return fail("tls_server_config.cipher_suites");
    }
  }
  if (SSL_CTX_use_certificate_chain_file(ctx, c.cert_file.c_str()) != 1) {
    return fail("tls_server_config.cert_file " + c.cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, c.key_file.c_str(), SSL_FILETYPE_PEM) !=
      1) {
    // OpenSSL compares the key with the certificate already loaded.
    const bool mismatch =
        ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    return fail(
        "tls_server_config.key_file " + c.key_file +
        (mismatch ? ": does not match the certificate in cert_file" : ""));
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return fail("tls_server_config.key_file " + c.key_file +
                ": does not match the certificate in cert_file");
  }
  if (!c.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, c.client_ca_file.c_str(), nullptr) !=
        1) {
      return fail("tls_server_config.client_ca_file " + c.client_ca_file);
    }
    STACK_OF(X509_NAME)* names =
        SSL_load_client_CA_file(c.client_ca_file.c_str());
    if (names == nullptr) {
      return fail("tls_server_config.client_ca_file " + c.client_ca_file +
                  ": no certificate in it");
    }
    SSL_CTX_set_client_CA_list(ctx, names);
  }
  switch (c.client_auth) {
    case ClientAuth::kNoClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
      break;
    case ClientAuth::kRequestClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, AcceptAnyCertificate);
      break;
    case ClientAuth::kRequireAnyClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                         AcceptAnyCertificate);
      break;
    case ClientAuth::kVerifyClientCertIfGiven:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
      break;
    case ClientAuth::kRequireAndVerifyClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                         nullptr);
      break;
  }
  SSL_CTX_set_session_id_context(ctx, kSessionIdContext,
                                 sizeof kSessionIdContext - 1);
  SSL_CTX_set_client_hello_cb(ctx, hello, hello_arg);
  return ctx;
}

}  // namespace

bool TlsContext::FileStamp::operator==(const FileStamp& o) const {
  return dev == o.dev && ino == o.ino && size == o.size &&
         mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
}

TlsContext::Stamps TlsContext::CurrentStamps() const {
  Stamps s{};
  const std::string* paths[] = {&config_.cert_file, &config_.key_file,
                                &config_.client_ca_file};
  for (std::size_t i = 0; i < s.size(); ++i) {
    struct stat st {};
    // stat() follows symlinks: a Kubernetes Secret volume swaps a symlink.
    if (paths[i]->empty() || stat(paths[i]->c_str(), &st) != 0) continue;
    s[i] = {st.st_dev, st.st_ino, st.st_size, st.st_mtim};
  }
  return s;
}

Result<std::unique_ptr<TlsContext>> TlsContext::Create(TlsConfig config) {
  std::unique_ptr<TlsContext> t(new TlsContext(std::move(config)));
  t->stamps_ = t->CurrentStamps();
  auto ctx = Build(t->config_, OnClientHello, t.get());
  if (!ctx.ok()) return ctx.error();
  t->initial_ = *ctx;
  SSL_CTX_up_ref(t->initial_);
  t->current_ = t->initial_;
  t->last_check_ = std::chrono::steady_clock::now();
  return t;
}

TlsContext::~TlsContext() {
  SSL_CTX_free(current_);
  SSL_CTX_free(initial_);
}

int TlsContext::reloads() const {
  std::lock_guard lock(mu_);
  return reloads_;
}

void TlsContext::MaybeReload() {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < std::chrono::seconds(1)) return;
  last_check_ = now;
  const Stamps stamps = CurrentStamps();
  if (stamps == stamps_) return;
  auto ctx = Build(config_, OnClientHello, this);
  if (!ctx.ok()) {
    if (!(stamps == failed_stamps_)) {
      failed_stamps_ = stamps;
      spdlog::warn(
          "msg=\"TLS files changed but cannot be loaded; serving the "
          "previous certificate\" err=\"{}\"",
          ctx.error().message);
    }
    return;
  }
  SSL_CTX_free(current_);
  current_ = *ctx;
  stamps_ = stamps;
  ++reloads_;
  spdlog::info("msg=\"reloaded TLS certificate\" cert_file={}",
               config_.cert_file);
}

int TlsContext::OnClientHello(SSL* ssl, int*, void* arg) {
  auto* self = static_cast<TlsContext*>(arg);
  self->MaybeReload();
  std::lock_guard lock(self->mu_);
  if (SSL_get_SSL_CTX(ssl) != self->current_) {
    SSL_set_SSL_CTX(ssl, self->current_);  // takes its own reference
  }
  return SSL_CLIENT_HELLO_SUCCESS;
}

}  // namespace rnic
