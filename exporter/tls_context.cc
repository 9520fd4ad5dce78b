#include "exporter/tls_context.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "collectors/common/bounded_file.h"

namespace rnic {
namespace {

using Credentials = std::shared_ptr<void>;

std::string Where(const std::string& key, const std::string& path) {
  return "tls_server_config." + key + " " + path;
}

// GnuTLS reads from memory: each file must be a regular file of PEM size,
// not a device or FIFO it would read without end.
Result<std::string> ReadPem(const std::string& key, const std::string& path) {
  auto text = ReadBoundedFile(path, kPemFileLimit);
  if (!text)
    return Error{"tls_server_config." + key + " " + text.error().ToString()};
  return std::move(text).value();
}

gnutls_datum_t Datum(const std::string& s) {
  return {reinterpret_cast<unsigned char*>(const_cast<char*>(s.data())),
          static_cast<unsigned>(s.size())};
}

// Client certificates of client_auth_type Verify*: checked against
// client_ca_file for a client's use (extended key usage clientAuth, as Go and
// OpenSSL check it). Only called for those types; no certificate at all is
// the business of gnutls_certificate_server_set_request.
int VerifyClientCertificate(gnutls_session_t session) {
  unsigned n = 0;
  if (gnutls_certificate_get_peers(session, &n) == nullptr || n == 0) return 0;
  gnutls_typed_vdata_st purpose{};
  purpose.type = GNUTLS_DT_KEY_PURPOSE_OID;
  purpose.data = reinterpret_cast<unsigned char*>(
      const_cast<char*>(GNUTLS_KP_TLS_WWW_CLIENT));
  unsigned status = 0;
  if (gnutls_certificate_verify_peers(session, &purpose, 1, &status) < 0 ||
      status != 0) {
    return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;
  }
  return 0;
}

// The credentials of `c`, and the PEM texts they were built from.
Result<Credentials> Build(const TlsConfig& c, std::string* cert_pem,
                          std::string* key_pem) {
  auto cert = ReadPem("cert_file", c.cert_file);
  if (!cert) return cert.error();
  auto key = ReadPem("key_file", c.key_file);
  if (!key) return key.error();
  std::string ca;
  if (!c.client_ca_file.empty()) {
    auto t = ReadPem("client_ca_file", c.client_ca_file);
    if (!t) return t.error();
    ca = std::move(t).value();
  }

  gnutls_x509_crt_t* chain = nullptr;
  unsigned chain_len = 0;
  const gnutls_datum_t cert_d = Datum(*cert);
  int rc = gnutls_x509_crt_list_import2(&chain, &chain_len, &cert_d,
                                        GNUTLS_X509_FMT_PEM, 0);
  if (rc < 0 || chain_len == 0) {
    return Error{Where("cert_file", c.cert_file) + ": " +
                 (rc < 0 ? gnutls_strerror(rc) : "no certificate in it")};
  }
  auto free_chain = [&] {
    for (unsigned i = 0; i < chain_len; ++i) gnutls_x509_crt_deinit(chain[i]);
    gnutls_free(chain);
  };
  gnutls_x509_privkey_t pk = nullptr;
  gnutls_x509_privkey_init(&pk);
  const gnutls_datum_t key_d = Datum(*key);
  // No password: an encrypted key fails here instead of prompting.
  rc = gnutls_x509_privkey_import2(pk, &key_d, GNUTLS_X509_FMT_PEM, nullptr, 0);
  if (rc < 0) {
    gnutls_x509_privkey_deinit(pk);
    free_chain();
    return Error{Where("key_file", c.key_file) + ": " + gnutls_strerror(rc)};
  }
  gnutls_certificate_credentials_t raw = nullptr;
  gnutls_certificate_allocate_credentials(&raw);
  Credentials cred(raw, [](void* p) {
    gnutls_certificate_free_credentials(
        static_cast<gnutls_certificate_credentials_t>(p));
  });
  // Copies both, and compares the key with the certificate.
  rc = gnutls_certificate_set_x509_key(raw, chain, chain_len, pk);
  gnutls_x509_privkey_deinit(pk);
  free_chain();
  if (rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH) {
    return Error{Where("key_file", c.key_file) +
                 ": does not match the certificate in cert_file"};
  }
  if (rc < 0) {
    return Error{Where("cert_file", c.cert_file) + ": " + gnutls_strerror(rc)};
  }
  if (!ca.empty()) {
    const gnutls_datum_t ca_d = Datum(ca);
    rc = gnutls_certificate_set_x509_trust_mem(raw, &ca_d, GNUTLS_X509_FMT_PEM);
    if (rc <= 0) {
      return Error{Where("client_ca_file", c.client_ca_file) + ": " +
                   (rc < 0 ? gnutls_strerror(rc) : "no certificate in it")};
    }
  }
  if (cert_pem != nullptr) *cert_pem = std::move(cert).value();
  if (key_pem != nullptr) *key_pem = std::move(key).value();
  return cred;
}

}  // namespace

std::string TlsPriorities(const TlsConfig& c) {
  const bool tls12 = c.min_version == TlsVersion::kTls12;
  const bool tls13 = !c.max_version || *c.max_version == TlsVersion::kTls13;
  std::string p = "NORMAL:-VERS-ALL";
  if (tls13) p += ":+VERS-TLS1.3";
  if (tls12) p += ":+VERS-TLS1.2";
  // Go ignores cipher_suites when only TLS 1.3 is on.
  if (tls12 && !c.cipher_suites.empty()) {
    std::vector<std::string_view> kx, cipher, mac;
    auto add = [](std::vector<std::string_view>& l, std::string_view v) {
      if (std::find(l.begin(), l.end(), v) == l.end()) l.push_back(v);
    };
    auto join = [](const std::vector<std::string_view>& l) {
      std::string out;
      for (auto v : l) out += ":+" + std::string(v);
      return out;
    };
    for (const auto& s : c.cipher_suites) {
      add(kx, s.kx);
      add(cipher, s.cipher);
      add(mac, s.mac);
    }
    // TLS 1.3 suites are AEAD; with CBC suites only, TLS 1.3 has no cipher
    // and is not offered.
    if (tls13) add(mac, "AEAD");
    p += ":-KX-ALL" + join(kx) + ":-CIPHER-ALL" + join(cipher) + ":-MAC-ALL" +
         join(mac);
  }
  if (c.prefer_server_cipher_suites) p += ":%SERVER_PRECEDENCE";
  return p;
}

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
  auto cred = Build(t->config_, &t->cert_pem_, &t->key_pem_);
  if (!cred.ok()) return cred.error();
  t->current_ = std::move(cred).value();
  t->priorities_ = TlsPriorities(t->config_);
  gnutls_priority_t prio = nullptr;
  const char* err_pos = nullptr;
  int rc = gnutls_priority_init(&prio, t->priorities_.c_str(), &err_pos);
  if (rc < 0) {
    return Error{"tls_server_config: GnuTLS refuses the priorities '" +
                 t->priorities_ + "': " + gnutls_strerror(rc)};
  }
  gnutls_priority_deinit(prio);
  t->last_check_ = std::chrono::steady_clock::now();
  return t;
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
  auto cred = Build(config_, nullptr, nullptr);
  if (!cred.ok()) {
    if (!(stamps == failed_stamps_)) {
      failed_stamps_ = stamps;
      spdlog::warn(
          "msg=\"TLS files changed but cannot be loaded; serving the "
          "previous certificate\" err=\"{}\"",
          cred.error().message);
    }
    return;
  }
  current_ = std::move(cred).value();
  stamps_ = stamps;
  ++reloads_;
  spdlog::info("msg=\"reloaded TLS certificate\" cert_file={}",
               config_.cert_file);
}

std::shared_ptr<void> TlsContext::Configure(gnutls_session_t session) {
  MaybeReload();
  std::shared_ptr<void> cred;
  {
    std::lock_guard lock(mu_);
    cred = current_;
  }
  gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, cred.get());
  switch (config_.client_auth) {
    case ClientAuth::kNoClientCert:
      gnutls_certificate_server_set_request(session, GNUTLS_CERT_IGNORE);
      break;
    case ClientAuth::kRequestClientCert:
      gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUEST);
      break;
    case ClientAuth::kRequireAnyClientCert:
      gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE);
      break;
    case ClientAuth::kVerifyClientCertIfGiven:
      gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUEST);
      gnutls_session_set_verify_function(session, VerifyClientCertificate);
      break;
    case ClientAuth::kRequireAndVerifyClientCert:
      gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE);
      gnutls_session_set_verify_function(session, VerifyClientCertificate);
      break;
  }
  return cred;
}

}  // namespace rnic
