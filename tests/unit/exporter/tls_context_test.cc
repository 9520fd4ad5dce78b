#include "exporter/tls_context.h"

#include <gnutls/gnutls.h>
#include <gtest/gtest.h>

namespace rnic {
namespace {

TlsConfig WithSuites(std::vector<std::string_view> names) {
  TlsConfig c;
  for (auto n : names) c.cipher_suites.push_back(*FindCipherSuite(n));
  return c;
}

// GnuTLS itself accepts the string (no silent typo in a keyword).
void ExpectValid(const std::string& p) {
  gnutls_priority_t prio = nullptr;
  const char* err = nullptr;
  EXPECT_EQ(gnutls_priority_init(&prio, p.c_str(), &err), 0)
      << p << " at " << (err ? err : "");
  if (prio != nullptr) gnutls_priority_deinit(prio);
}

TEST(TlsPrioritiesTest, Versions) {
  TlsConfig c;
  EXPECT_EQ(TlsPriorities(c),
            "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE");
  c.max_version = TlsVersion::kTls12;
  c.prefer_server_cipher_suites = false;
  EXPECT_EQ(TlsPriorities(c), "NORMAL:-VERS-ALL:+VERS-TLS1.2");
  ExpectValid(TlsPriorities(c));
  c.min_version = c.max_version.emplace(TlsVersion::kTls13);
  EXPECT_EQ(TlsPriorities(c), "NORMAL:-VERS-ALL:+VERS-TLS1.3");
}

TEST(TlsPrioritiesTest, CipherSuitesByTheirParts) {
  TlsConfig c = WithSuites({"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                            "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"});
  EXPECT_EQ(TlsPriorities(c),
            "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-KX-ALL:+ECDHE-RSA:"
            "-CIPHER-ALL:+AES-256-GCM:+AES-128-CBC:-MAC-ALL:+AEAD:+SHA1:"
            "%SERVER_PRECEDENCE");
  ExpectValid(TlsPriorities(c));
  // Without TLS 1.3 no AEAD MAC is added for CBC suites.
  c = WithSuites({"TLS_RSA_WITH_AES_128_CBC_SHA"});
  c.max_version = TlsVersion::kTls12;
  EXPECT_EQ(TlsPriorities(c),
            "NORMAL:-VERS-ALL:+VERS-TLS1.2:-KX-ALL:+RSA:-CIPHER-ALL:"
            "+AES-128-CBC:-MAC-ALL:+SHA1:%SERVER_PRECEDENCE");
  ExpectValid(TlsPriorities(c));
  // As Go: TLS 1.3 only ignores the list.
  c.min_version = TlsVersion::kTls13;
  c.max_version.reset();
  EXPECT_EQ(TlsPriorities(c),
            "NORMAL:-VERS-ALL:+VERS-TLS1.3:%SERVER_PRECEDENCE");
}

}  // namespace
}  // namespace rnic
