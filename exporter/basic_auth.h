// HTTP basic authentication against exporter-toolkit's basic_auth_users:
// bcrypt hashes checked with the system's libcrypt (crypt_rn), compared in
// constant time. bcrypt is slow by design (tens of milliseconds per check),
// so successful checks are remembered in a small bounded cache keyed by an
// HMAC of user and password under a per-process random key: the cache never
// holds a plaintext password nor anything testable offline without that key.
#pragma once

#include <array>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

// OK when `hash` is a bcrypt hash ($2y$, $2b$, $2a$) libcrypt accepts.
[[nodiscard]] Status CheckBcryptHash(std::string_view hash);
// True when `password` matches the bcrypt `hash` (constant-time compare).
[[nodiscard]] bool BcryptMatches(std::string_view password,
                                 std::string_view hash);

class BasicAuth {
 public:
  // `users`: user -> bcrypt hash, each checked with CheckBcryptHash.
  explicit BasicAuth(std::vector<std::pair<std::string, std::string>> users);

  [[nodiscard]] bool enabled() const { return !users_.empty(); }
  // `authorization`: the Authorization header's value ("" when absent).
  [[nodiscard]] bool Allows(std::string_view authorization);
  // Successful checks served from the cache (for tests).
  [[nodiscard]] std::size_t cache_size();

  static constexpr std::size_t kCacheEntries = 64;

 private:
  using Key = std::array<unsigned char, 32>;
  Key CacheKey(std::string_view user, std::string_view password) const;

  std::vector<std::pair<std::string, std::string>> users_;
  std::array<unsigned char, 32> hmac_key_{};
  bool cache_disabled_ = false;
  std::mutex mu_;
  std::set<Key> cache_;
};

// The "user:password" of a "Basic <base64>" header value; false when the
// value is not one.
[[nodiscard]] bool DecodeBasicAuth(std::string_view authorization,
                                   std::string& user, std::string& password);

}  // namespace rnic
