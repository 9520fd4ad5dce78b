#include "exporter/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <cctype>
#include <cstring>
#include <memory>

#include "collectors/common/base64.h"

namespace rnic {
namespace {

// libcrypt's scratch space is about 32 KiB: on the heap, not on a worker
// thread's stack.
std::unique_ptr<crypt_data> NewCryptData() {
  auto d = std::make_unique<crypt_data>();
  std::memset(d.get(), 0, sizeof(crypt_data));
  return d;
}

bool IsBcryptPrefix(std::string_view h) {
  return h.starts_with("$2y$") || h.starts_with("$2b$") ||
         h.starts_with("$2a$");
}

}  // namespace

Status CheckBcryptHash(std::string_view hash) {
  if (!IsBcryptPrefix(hash)) {
    return Error{"not a bcrypt hash (expected $2y$, $2b$ or $2a$)"};
  }
  // "$2y$" cost "$" then 22 characters of salt and 31 of hash.
  constexpr std::size_t kLength = 60;
  const bool digits =
      hash.size() > 6 && std::isdigit(static_cast<unsigned char>(hash[4])) &&
      std::isdigit(static_cast<unsigned char>(hash[5])) && hash[6] == '$';
  if (hash.size() != kLength || !digits) {
    return Error{"malformed bcrypt hash (expected $2y$NN$ and 53 characters)"};
  }
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < 4 || cost > 31) {
    return Error{"bcrypt cost " + std::to_string(cost) +
                 " out of range 4 to 31"};
  }
  // Let libcrypt judge the salt, at the lowest cost: a check at the hash's
  // own cost could take minutes.
  std::string cheap(hash);
  cheap[4] = '0';
  cheap[5] = '4';
  auto data = NewCryptData();
  const char* out = crypt_rn("", cheap.c_str(), data.get(), sizeof(crypt_data));
  if (out == nullptr || out[0] == '*' || std::strlen(out) != kLength ||
      std::strncmp(out, cheap.c_str(), 29) != 0) {
    return Error{"malformed bcrypt hash (libcrypt refuses it)"};
  }
  return Status::Ok();
}

bool BcryptMatches(std::string_view password, std::string_view hash) {
  if (!IsBcryptPrefix(hash)) return false;
  // bcrypt reads up to the NUL: a password with one would be cut short.
  if (password.find('\0') != std::string_view::npos) return false;
  auto data = NewCryptData();
  const std::string p(password);
  const std::string h(hash);
  const char* out =
      crypt_rn(p.c_str(), h.c_str(), data.get(), sizeof(crypt_data));
  if (out == nullptr || out[0] == '*') return false;
  const std::size_t n = std::strlen(out);
  return n == h.size() && CRYPTO_memcmp(out, h.data(), n) == 0;
}

bool DecodeBasicAuth(std::string_view authorization, std::string& user,
                     std::string& password) {
  constexpr std::string_view kScheme = "basic ";
  if (authorization.size() < kScheme.size()) return false;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != kScheme[i]) return false;
  }
  std::string_view b64 = authorization.substr(kScheme.size());
  while (!b64.empty() && b64.front() == ' ') b64.remove_prefix(1);
  while (!b64.empty() && b64.back() == ' ') b64.remove_suffix(1);
  std::string plain;
  if (!DecodeBase64(b64, plain)) return false;
  const auto colon = plain.find(':');
  if (colon == std::string::npos) return false;
  user = plain.substr(0, colon);
  password = plain.substr(colon + 1);
  return true;
}

BasicAuth::BasicAuth(std::vector<std::pair<std::string, std::string>> users)
    : users_(std::move(users)) {
  if (users_.empty()) return;  // auth off: OpenSSL is never touched
  // getrandom, not RAND_bytes: OpenSSL's generator loads its providers,
  // about 3 MiB of resident libcrypto for 32 bytes.
  if (::getrandom(hmac_key_.data(), hmac_key_.size(), 0) !=
      static_cast<ssize_t>(hmac_key_.size())) {
    // Without randomness, no cache: every request pays for bcrypt.
    cache_disabled_ = true;
  }
}

BasicAuth::Key BasicAuth::CacheKey(std::string_view user,
                                   std::string_view password) const {
  std::string msg;
  msg.reserve(user.size() + 1 + password.size());
  msg.append(user).push_back('\0');
  msg.append(password);
  Key k{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), hmac_key_.data(), static_cast<int>(hmac_key_.size()),
       reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), k.data(),
       &len);
  OPENSSL_cleanse(msg.data(), msg.size());
  return k;
}

bool BasicAuth::Allows(std::string_view authorization) {
  if (users_.empty()) return true;
  std::string user;
  std::string password;
  if (!DecodeBasicAuth(authorization, user, password)) return false;
  struct Cleanse {
    std::string& s;
    ~Cleanse() { OPENSSL_cleanse(s.data(), s.size()); }
  } cleanse{password};
  const std::string* hash = nullptr;
  for (const auto& [u, h] : users_) {
    if (u == user) hash = &h;
  }
  if (hash == nullptr) {
    // Same cost as a known user's check: the answer's timing does not tell
    // which user names exist.
    (void)BcryptMatches(password, users_.front().second);
    return false;
  }
  const Key key = CacheKey(user, password);
  if (!cache_disabled_) {
    std::lock_guard lock(mu_);
    if (cache_.count(key) != 0) return true;
  }
  if (!BcryptMatches(password, *hash)) return false;
  if (!cache_disabled_) {
    std::lock_guard lock(mu_);
    // Bounded: an arbitrary entry (keys are HMACs, so effectively random)
    // makes room.
    if (cache_.size() >= kCacheEntries) cache_.erase(cache_.begin());
    cache_.insert(key);
  }
  return true;
}

std::size_t BasicAuth::cache_size() {
  std::lock_guard lock(mu_);
  return cache_.size();
}

}  // namespace rnic
