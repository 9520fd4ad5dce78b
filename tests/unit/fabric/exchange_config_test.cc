// The address exchange's TLS and basic auth settings (fabric.exchange_*)
// and the pieces of the client that need no peer: the password file and
// the start-up checks.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>

#include "collectors/fabric/exchange_client.h"
#include "collectors/fabric/fabric_config.h"

namespace rnic::fabric {
namespace {

std::string ErrorOf(const std::string& yaml) {
  auto r = ParseFabricConfig(YAML::Load(yaml));
  return r.ok() ? "" : r.error().message;
}

TEST(ExchangeConfigTest, DefaultsArePlainHttpWithoutAuth) {
  auto r = ParseFabricConfig(YAML::Load("{peers: [a]}"));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exchange_https);
  EXPECT_EQ(r->exchange_tls, ExchangeTlsConfig{});
  EXPECT_FALSE(r->exchange_basic_auth.has_value());
}

TEST(ExchangeConfigTest, FullSettings) {
  auto r = ParseFabricConfig(YAML::Load(R"(
exchange_scheme: https
exchange_tls_config:
  ca_file: /etc/rnic/ca.pem
  cert_file: /etc/rnic/client.pem
  key_file: /etc/rnic/client.key
  server_name: rnic-exporter.monitoring.svc
  insecure_skip_verify: false
exchange_basic_auth:
  username: prometheus
  password_file: /etc/rnic/password
)"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->exchange_https);
  EXPECT_EQ(r->exchange_tls.ca_file, "/etc/rnic/ca.pem");
  EXPECT_EQ(r->exchange_tls.cert_file, "/etc/rnic/client.pem");
  EXPECT_EQ(r->exchange_tls.key_file, "/etc/rnic/client.key");
  EXPECT_EQ(r->exchange_tls.server_name, "rnic-exporter.monitoring.svc");
  EXPECT_FALSE(r->exchange_tls.insecure_skip_verify);
  ASSERT_TRUE(r->exchange_basic_auth.has_value());
  EXPECT_EQ(r->exchange_basic_auth->username, "prometheus");
  EXPECT_EQ(r->exchange_basic_auth->password_file, "/etc/rnic/password");
}

TEST(ExchangeConfigTest, HttpSchemeAndBasicAuthAlone) {
  auto r = ParseFabricConfig(
      YAML::Load("{exchange_scheme: http, exchange_basic_auth: {username: u, "
                 "password_file: p}}"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->exchange_https);
  EXPECT_EQ(r->exchange_basic_auth->username, "u");
}

TEST(ExchangeConfigTest, BadValuesNameTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {"{exchange_scheme: HTTPS}",
       "fabric.exchange_scheme: must be http or https, not 'HTTPS'"},
      {"{exchange_scheme: [https]}", "fabric.exchange_scheme"},
      {"{exchange_tls_config: {ca_file: /a}}",
       "fabric.exchange_tls_config: needs exchange_scheme: https"},
      {"{exchange_scheme: https, exchange_tls_config: [a]}",
       "fabric.exchange_tls_config: must be a map"},
      {"{exchange_scheme: https, exchange_tls_config: {ca: /a}}",
       "fabric.exchange_tls_config.ca: unknown key"},
      {"{exchange_scheme: https, exchange_tls_config: {ca_file: ''}}",
       "fabric.exchange_tls_config.ca_file: must not be empty"},
      {"{exchange_scheme: https, exchange_tls_config: {cert_file: /c}}",
       "fabric.exchange_tls_config.key_file: cert_file and key_file go "
       "together"},
      {"{exchange_scheme: https, exchange_tls_config: {key_file: /k}}",
       "fabric.exchange_tls_config.cert_file: cert_file and key_file go "
       "together"},
      {"{exchange_scheme: https, exchange_tls_config: {server_name: 'a b'}}",
       "fabric.exchange_tls_config.server_name: must be a host name or IP "
       "address"},
      {"{exchange_scheme: https, exchange_tls_config: {insecure_skip_verify: "
       "yes}}",
       "fabric.exchange_tls_config.insecure_skip_verify"},
      {"{exchange_basic_auth: {password_file: /p}}",
       "fabric.exchange_basic_auth: needs a username"},
      {"{exchange_basic_auth: {username: u}}",
       "fabric.exchange_basic_auth: needs a password_file"},
      {"{exchange_basic_auth: {username: 'a:b', password_file: /p}}",
       "fabric.exchange_basic_auth.username: must be non-empty, without ':'"},
      {"{exchange_basic_auth: {username: u, password: x}}",
       "fabric.exchange_basic_auth.password: unknown key"},
      {"{exchange_basic_auth: u}", "fabric.exchange_basic_auth: must be a map"},
  };
  for (const auto& [yaml, want] : cases) {
    EXPECT_NE(ErrorOf(yaml).find(want), std::string::npos)
        << yaml << " -> " << ErrorOf(yaml);
  }
}

TEST(ExchangeClientTest, PasswordFileIsTrimmedAndItsErrorsHideTheContent) {
  const std::string path = ::testing::TempDir() + "/rnic_exchange_pw";
  { std::ofstream(path) << "  s3cret\n"; }
  auto p = ReadPasswordFile(path, "k");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, "s3cret");
  { std::ofstream(path) << "s3cret\nsecond\n"; }
  p = ReadPasswordFile(path, "k");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.find("s3cret"), std::string::npos);
  EXPECT_NE(p.error().message.find("more than one line"), std::string::npos);
  std::remove(path.c_str());
  p = ReadPasswordFile(path, "k");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.rfind("k: cannot read '" + path + "'", 0), 0u)
      << p.error().message;
}

TEST(ExchangeClientTest, PlainClientCreatesNoTlsAndChecksThePasswordFile) {
  FabricConfig c;
  EXPECT_TRUE(ExchangeClient::Create(c).ok());
  c.exchange_basic_auth = ExchangeBasicAuth{"u", "/nonexistent/pw"};
  auto r = ExchangeClient::Create(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(
                "fabric.exchange_basic_auth.password_file: cannot read"),
            std::string::npos);
}

}  // namespace
}  // namespace rnic::fabric
