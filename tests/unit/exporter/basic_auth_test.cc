#include "exporter/basic_auth.h"

#include <crypt.h>
#include <gtest/gtest.h>

namespace rnic {
namespace {

// Openwall crypt_blowfish test vectors (crypt_blowfish-1.3, wrapper.c):
// "U*U" and "U*U*" under the fixed salt "CCC...". The $2y$/$2b$ forms hash
// the same for ASCII passwords.
constexpr const char* kUU =
    "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
constexpr const char* kUUStar =
    "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK";
constexpr const char* kUU2y =
    "$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
constexpr const char* kUU2b =
    "$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";

// "Basic " + base64(text), for texts without padding needs beyond '='.
std::string Header(const std::string& user_colon_password) {
  static const char* kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  const auto& in = user_colon_password;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    unsigned n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[n & 63] : '=';
  }
  return "Basic " + out;
}

// A fresh bcrypt hash from libcrypt itself, at the lowest cost.
std::string FreshHash(const std::string& password) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof salt),
            nullptr);
  crypt_data data{};
  const char* h = crypt_rn(password.c_str(), salt, &data, sizeof data);
  EXPECT_NE(h, nullptr);
  return h ? h : "";
}

TEST(BcryptTest, KnownVectors) {
  EXPECT_TRUE(BcryptMatches("U*U", kUU));
  EXPECT_TRUE(BcryptMatches("U*U*", kUUStar));
  EXPECT_TRUE(BcryptMatches("U*U", kUU2y));
  EXPECT_TRUE(BcryptMatches("U*U", kUU2b));
  EXPECT_FALSE(BcryptMatches("U*U*", kUU));
  EXPECT_FALSE(BcryptMatches("", kUU));
  EXPECT_FALSE(BcryptMatches("U*U", "U*U"));  // not a hash
  EXPECT_FALSE(BcryptMatches(std::string_view("U*U\0x", 5), kUU));
}

TEST(BcryptTest, FreshHashes) {
  const std::string h = FreshHash("correct horse");
  ASSERT_EQ(h.substr(0, 7), "$2b$04$");
  EXPECT_TRUE(CheckBcryptHash(h).ok());
  EXPECT_TRUE(BcryptMatches("correct horse", h));
  EXPECT_FALSE(BcryptMatches("correct horsE", h));
}

TEST(BcryptTest, CheckHash) {
  EXPECT_TRUE(CheckBcryptHash(kUU).ok());
  EXPECT_TRUE(CheckBcryptHash(kUU2y).ok());
  EXPECT_FALSE(CheckBcryptHash("").ok());
  EXPECT_FALSE(CheckBcryptHash("$6$salt$hash").ok());
  EXPECT_FALSE(CheckBcryptHash(std::string(kUU) + "x").ok());
  EXPECT_FALSE(CheckBcryptHash(std::string(kUU).substr(0, 59)).ok());
  EXPECT_FALSE(
      CheckBcryptHash(
          "$2y$03$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
          .ok());
  EXPECT_FALSE(
      CheckBcryptHash(
          "$2y$ab$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
          .ok());
}

TEST(BasicAuthTest, DecodeHeader) {
  std::string u, p;
  ASSERT_TRUE(DecodeBasicAuth(Header("alice:se:cret"), u, p));
  EXPECT_EQ(u, "alice");
  EXPECT_EQ(p, "se:cret");
  ASSERT_TRUE(DecodeBasicAuth("basic " + Header("a:").substr(6), u, p));
  EXPECT_EQ(u, "a");
  EXPECT_EQ(p, "");
  EXPECT_FALSE(DecodeBasicAuth("", u, p));
  EXPECT_FALSE(DecodeBasicAuth("Bearer abc", u, p));
  EXPECT_FALSE(DecodeBasicAuth("Basic !!!!", u, p));
  EXPECT_FALSE(DecodeBasicAuth("Basic YWxpY2U=", u, p));  // "alice", no colon
  EXPECT_FALSE(DecodeBasicAuth("Basic YQ=a", u, p));      // data after '='
  EXPECT_FALSE(DecodeBasicAuth("Basic YWJj", u, p) && u.empty());
}

TEST(BasicAuthTest, AllowsOnlyRightCredentialsAndCachesSuccess) {
  BasicAuth auth({{"alice", kUU2y}, {"bob", kUUStar}});
  ASSERT_TRUE(auth.enabled());
  EXPECT_FALSE(auth.Allows(""));
  EXPECT_FALSE(auth.Allows(Header("alice:wrong")));
  EXPECT_FALSE(auth.Allows(Header("mallory:U*U")));
  EXPECT_FALSE(auth.Allows(Header("bob:U*U")));  // alice's password
  EXPECT_EQ(auth.cache_size(), 0u);
  EXPECT_TRUE(auth.Allows(Header("alice:U*U")));
  EXPECT_EQ(auth.cache_size(), 1u);
  EXPECT_TRUE(auth.Allows(Header("alice:U*U")));  // from the cache
  EXPECT_EQ(auth.cache_size(), 1u);
  EXPECT_TRUE(auth.Allows(Header("bob:U*U*")));
  EXPECT_EQ(auth.cache_size(), 2u);
  // A cached success does not let a different password or user in.
  EXPECT_FALSE(auth.Allows(Header("alice:U*U*")));
  EXPECT_FALSE(auth.Allows(Header("bob:U*U")));
}

TEST(BasicAuthTest, CacheIsBounded) {
  // One user per entry, each with its own fresh hash of the same password.
  std::vector<std::pair<std::string, std::string>> users;
  const std::string h = FreshHash("pw");
  const std::size_t n = BasicAuth::kCacheEntries + 5;
  for (std::size_t i = 0; i < n; ++i)
    users.emplace_back("u" + std::to_string(i), h);
  BasicAuth auth(users);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(auth.Allows(Header("u" + std::to_string(i) + ":pw")));
  }
  EXPECT_EQ(auth.cache_size(), BasicAuth::kCacheEntries);
}

TEST(BasicAuthTest, NoUsersAllowsEverything) {
  BasicAuth auth({});
  EXPECT_FALSE(auth.enabled());
  EXPECT_TRUE(auth.Allows(""));
}

}  // namespace
}  // namespace rnic
