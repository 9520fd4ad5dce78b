#include "exporter/web_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "collectors/common/yaml_document.h"

namespace rnic {
namespace {

// A valid bcrypt hash of "U*U" (Openwall crypt_blowfish test vectors,
// wrapper.c), here as $2y$.
constexpr const char* kHash =
    "$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";

TEST(WebConfigTest, EmptyIsPlainHttpWithoutAuth) {
  auto c = ParseWebConfig("", "/etc");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->tls);
  EXPECT_TRUE(c->users.empty());
  EXPECT_TRUE(c->headers.empty());
}

TEST(WebConfigTest, FullExample) {
  auto c = ParseWebConfig(std::string(R"(
tls_server_config:
  cert_file: server.crt
  key_file: /abs/server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: TLS12
  max_version: TLS13
  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]
  prefer_server_cipher_suites: false
http_server_config:
  http2: true
  headers:
    X-Frame-Options: deny
    strict-transport-security: max-age=31536000
basic_auth_users:
  alice: ')") + kHash + "'\n",
                          "/etc/rnic");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->tls);
  EXPECT_EQ(c->tls->cert_file, "/etc/rnic/server.crt");
  EXPECT_EQ(c->tls->key_file, "/abs/server.key");
  EXPECT_EQ(c->tls->client_ca_file, "/etc/rnic/ca.crt");
  EXPECT_EQ(c->tls->client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(c->tls->min_version, TlsVersion::kTls12);
  EXPECT_EQ(c->tls->max_version, TlsVersion::kTls13);
  ASSERT_EQ(c->tls->cipher_suites.size(), 1u);
  EXPECT_EQ(c->tls->cipher_suites[0].go,
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
  EXPECT_FALSE(c->tls->prefer_server_cipher_suites);
  ASSERT_EQ(c->headers.size(), 2u);
  EXPECT_EQ(c->headers[0].first, "X-Frame-Options");
  EXPECT_EQ(c->headers[1].first, "Strict-Transport-Security");
  ASSERT_EQ(c->users.size(), 1u);
  EXPECT_EQ(c->users[0].first, "alice");
  EXPECT_EQ(c->users[0].second, kHash);
}

TEST(WebConfigTest, DefaultsOfTls) {
  auto c =
      ParseWebConfig("tls_server_config: {cert_file: a, key_file: b}\n", "");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->tls->client_auth, ClientAuth::kNoClientCert);
  EXPECT_EQ(c->tls->min_version, TlsVersion::kTls12);
  EXPECT_FALSE(c->tls->max_version);
  EXPECT_TRUE(c->tls->cipher_suites.empty());
  EXPECT_EQ(c->tls->cert_file, "a");
}

TEST(WebConfigTest, CipherNames) {
  auto s = FindCipherSuite("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kx, "ECDHE-ECDSA");
  EXPECT_EQ(s->cipher, "AES-256-GCM");
  EXPECT_EQ(s->mac, "AEAD");
  EXPECT_EQ(FindCipherSuite("TLS_RSA_WITH_AES_128_CBC_SHA")->mac, "SHA1");
  EXPECT_EQ(FindCipherSuite("TLS_AES_256_GCM_SHA384")->kx, "");
  EXPECT_FALSE(FindCipherSuite("TLS_RSA_WITH_RC4_128_SHA"));
  EXPECT_FALSE(FindCipherSuite("ECDHE-RSA-AES128-GCM-SHA256"));
}

// GnuTLS enables parts, not suites: a list is taken when the suites its
// parts make are all listed (exporter-toolkit's usual ECDHE list is).
TEST(WebConfigTest, CipherListsGnuTlsCanExpressExactly) {
  const std::string tls = "tls_server_config:\n  cert_file: c\n  key_file: k\n";
  auto c = ParseWebConfig(tls + R"(  cipher_suites:
    - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
    - TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
    - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
    - TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305
    - TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
    - TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305
)",
                          "");
  ASSERT_TRUE(c.ok()) << c.error().message;
  // The two names of one suite count once.
  EXPECT_EQ(c->tls->cipher_suites.size(), 6u);
  c = ParseWebConfig(tls + R"(  cipher_suites:
    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
    - TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
)",
                     "");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "tls_server_config.cipher_suites: GnuTLS enables key exchanges, "
            "ciphers and MACs one by one, so this list would also enable "
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256; add it or drop a suite");
}

struct BadCase {
  std::string yaml;
  std::string message;
};

TEST(WebConfigTest, EveryBadCaseNamesTheKey) {
  const std::string tls = "tls_server_config:\n  cert_file: c\n  key_file: k\n";
  const std::vector<BadCase> cases = {
      {"[a\n", ""},  // not YAML: yaml-cpp's message
      {"- a\n", "top level must be a map"},
      {"tls_config: {}\n", "tls_config: unknown key"},
      {"[a, b]: 1\n", "a key must be a plain name, not [a, b]"},
      {"basic_auth_users: {}\nbasic_auth_users: {}\n",
       "basic_auth_users: given twice"},
      {"tls_server_config: {cert_file: c, key_file: k, cert: x}\n",
       "tls_server_config.cert: unknown key"},
      {"tls_server_config: [a]\n", "tls_server_config: must be a map"},
      {"tls_server_config: {key_file: k}\n",
       "tls_server_config.cert_file: missing"},
      {"tls_server_config: {cert_file: c}\n",
       "tls_server_config.key_file: missing"},
      {"tls_server_config: {cert_file: [c], key_file: k}\n",
       "tls_server_config.cert_file: expected a string"},
      {"tls_server_config: {cert_file: '', key_file: k}\n",
       "tls_server_config.cert_file: empty path"},
      {tls + "  client_auth_type: RequireClientCert\n",
       "tls_server_config.client_auth_type: expected NoClientCert"},
      {tls + "  client_auth_type: RequireAndVerifyClientCert\n",
       "tls_server_config.client_ca_file: missing"},
      {tls + "  client_auth_type: VerifyClientCertIfGiven\n",
       "tls_server_config.client_ca_file: missing"},
      {tls + "  client_ca_file: ca\n",
       "tls_server_config.client_ca_file: given without a client_auth_type"},
      {tls + "  min_version: TLS14\n",
       "tls_server_config.min_version: expected TLS12 or TLS13, got 'TLS14'"},
      {tls + "  min_version: TLS10\n",
       "tls_server_config.min_version: TLS10 is not supported"},
      {tls + "  max_version: TLS11\n",
       "tls_server_config.max_version: TLS11 is not supported"},
      {tls + "  min_version: TLS13\n  max_version: TLS12\n",
       "tls_server_config: max_version is below min_version"},
      {tls + "  cipher_suites: TLS_AES_128_GCM_SHA256\n",
       "tls_server_config.cipher_suites: expected a list"},
      {tls + "  cipher_suites: [TLS_AES_128_GCM_SHA256, RC4]\n",
       "tls_server_config.cipher_suites[1]: unknown cipher suite 'RC4'"},
      {tls + "  prefer_server_cipher_suites: yes\n",
       "tls_server_config.prefer_server_cipher_suites: expected true or false"},
      {"http_server_config: {headers: {Content-Type: text/html}}\n",
       "http_server_config.headers.Content-Type: this header cannot be "
       "configured"},
      {"http_server_config: {headers: {Authorization: x}}\n",
       "http_server_config.headers.Authorization: this header cannot be"},
      {"http_server_config: {headers: {X-Frame-Options: allow}}\n",
       "http_server_config.headers.X-Frame-Options: expected deny or "
       "sameorigin, got 'allow'"},
      {"http_server_config: {headers: {X-Content-Type-Options: sniff}}\n",
       "http_server_config.headers.X-Content-Type-Options: expected nosniff"},
      {"http_server_config: {headers: {X-XSS-Protection: \"1\\r\\nX: y\"}}\n",
       "http_server_config.headers.X-XSS-Protection: control character"},
      {"http_server_config: {headers: [a]}\n",
       "http_server_config.headers: must be a map"},
      {"http_server_config: {http2: maybe}\n",
       "http_server_config.http2: expected true or false"},
      {"http_server_config: {timeout: 1}\n",
       "http_server_config.timeout: unknown key"},
      {"basic_auth_users: [alice]\n", "basic_auth_users: must be a map"},
      {"basic_auth_users: {alice: secret}\n",
       "basic_auth_users.alice: not a bcrypt hash"},
      {"basic_auth_users: {alice: '$1$abc$defghijklmnopqrstuvwx'}\n",
       "basic_auth_users.alice: not a bcrypt hash"},
      {"basic_auth_users: {alice: '$2y$05$CCCC'}\n",
       "basic_auth_users.alice: malformed bcrypt hash"},
      {"basic_auth_users: {alice: "
       "'$2y$99$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'}\n",
       "basic_auth_users.alice: bcrypt cost 99 out of range"},
      {"basic_auth_users: {alice: "
       "'$2y$05$CCCCCCCCCCCCCCCCCCCC!.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'}\n",
       "basic_auth_users.alice: malformed bcrypt hash (libcrypt refuses it)"},
      {"basic_auth_users: {alice: [x]}\n",
       "basic_auth_users.alice: expected a string"},
      {std::string("basic_auth_users: {'a:b': '") + kHash + "'}\n",
       "basic_auth_users.a:b: a user name cannot contain ':'"},
  };
  for (const auto& c : cases) {
    auto r = ParseWebConfig(c.yaml, "/etc");
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.yaml << " -> " << r.error().message;
  }
}

// Everything after a "---" was ignored, unknown keys included.
TEST(WebConfigTest, SecondDocumentIsRefused) {
  auto c = ParseWebConfig("basic_auth_users: {}\n---\nbasic_auth: {}\n", "");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("more than one YAML document"),
            std::string::npos);
}

// yaml-cpp's LoadAll() never returns on this input (found by
// fuzz_web_config): the document check must stop after two.
TEST(WebConfigTest, InputThatLoadAllLoopsOnReturns) {
  std::ifstream f(std::string(RNIC_FIXTURES_DIR) +
                  "/yaml/loadall_never_returns.yml");
  ASSERT_TRUE(f.good());
  std::stringstream text;
  text << f.rdbuf();
  ASSERT_GT(text.str().size(), 100u);
  auto c = ParseWebConfig(text.str(), "");
  EXPECT_FALSE(c.ok());
  auto doc = LoadOneDocument(text.str());
  EXPECT_FALSE(doc.ok());
}

TEST(WebConfigTest, MissingFileNamesIt) {
  auto r = LoadWebConfig("/nonexistent/web.yml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "/nonexistent/web.yml: cannot be read: No such file or directory");
  r = LoadWebConfig("/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "/: not a regular file");
  // Read without end before.
  r = LoadWebConfig("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "/dev/zero: not a regular file");
}

}  // namespace
}  // namespace rnic
