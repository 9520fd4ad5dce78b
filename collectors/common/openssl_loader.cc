#include "collectors/common/openssl_loader.h"

#include <dlfcn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstdlib>
#include <string>

// Every OpenSSL function the project calls, including those that macros
// expand to (SSL_CTX_set_min_proto_version and SSL_set_tlsext_host_name are
// SSL_CTX_ctrl and SSL_ctrl): X(return type, name, (parameters), (arguments)).
// A name missing here is an undefined reference at link time; a signature
// that differs from the header's is a compile error.
#define RNIC_OPENSSL_FUNCTIONS(X)                                            \
  /* libcrypto */                                                            \
  X(int, CRYPTO_memcmp, (const void* a, const void* b, size_t n), (a, b, n)) \
  X(void, OPENSSL_cleanse, (void* p, size_t n), (p, n))                      \
  X(const EVP_MD*, EVP_sha256, (void), ())                                   \
  X(unsigned char*, HMAC,                                                    \
    (const EVP_MD* md, const void* key, int key_len,                         \
     const unsigned char* data, size_t data_len, unsigned char* out,         \
     unsigned int* out_len),                                                 \
    (md, key, key_len, data, data_len, out, out_len))                        \
  X(unsigned long, ERR_get_error, (void), ())                                \
  X(unsigned long, ERR_peek_last_error, (void), ())                          \
  X(void, ERR_clear_error, (void), ())                                       \
  X(void, ERR_error_string_n, (unsigned long e, char* buf, size_t len),      \
    (e, buf, len))                                                           \
  X(const char*, X509_verify_cert_error_string, (long n), (n))               \
  X(int, X509_VERIFY_PARAM_set1_ip_asc,                                      \
    (X509_VERIFY_PARAM * param, const char* ip), (param, ip))                \
  /* libssl: contexts */                                                     \
  X(const SSL_METHOD*, TLS_server_method, (void), ())                        \
  X(const SSL_METHOD*, TLS_client_method, (void), ())                        \
  X(SSL_CTX*, SSL_CTX_new, (const SSL_METHOD* m), (m))                       \
  X(int, SSL_CTX_up_ref, (SSL_CTX * ctx), (ctx))                             \
  X(void, SSL_CTX_free, (SSL_CTX * ctx), (ctx))                              \
  X(long, SSL_CTX_ctrl, (SSL_CTX * ctx, int cmd, long larg, void* parg),     \
    (ctx, cmd, larg, parg))                                                  \
  X(uint64_t, SSL_CTX_set_options, (SSL_CTX * ctx, uint64_t op), (ctx, op))  \
  X(void, SSL_CTX_set_default_passwd_cb,                                     \
    (SSL_CTX * ctx, pem_password_cb * cb), (ctx, cb))                        \
  X(int, SSL_CTX_set_cipher_list, (SSL_CTX * ctx, const char* s), (ctx, s))  \
  X(int, SSL_CTX_use_certificate_chain_file, (SSL_CTX * ctx, const char* f), \
    (ctx, f))                                                                \
  X(int, SSL_CTX_use_PrivateKey_file,                                        \
    (SSL_CTX * ctx, const char* f, int type), (ctx, f, type))                \
  X(int, SSL_CTX_check_private_key, (const SSL_CTX* ctx), (ctx))             \
  X(int, SSL_CTX_load_verify_locations,                                      \
    (SSL_CTX * ctx, const char* file, const char* path), (ctx, file, path))  \
  X(int, SSL_CTX_set_default_verify_paths, (SSL_CTX * ctx), (ctx))           \
  X(STACK_OF(X509_NAME)*, SSL_load_client_CA_file, (const char* f), (f))     \
  X(void, SSL_CTX_set_client_CA_list,                                        \
    (SSL_CTX * ctx, STACK_OF(X509_NAME) * names), (ctx, names))              \
  X(void, SSL_CTX_set_verify, (SSL_CTX * ctx, int mode, SSL_verify_cb cb),   \
    (ctx, mode, cb))                                                         \
  X(int, SSL_CTX_set_session_id_context,                                     \
    (SSL_CTX * ctx, const unsigned char* id, unsigned int len),              \
    (ctx, id, len))                                                          \
  X(void, SSL_CTX_set_client_hello_cb,                                       \
    (SSL_CTX * ctx, SSL_client_hello_cb_fn cb, void* arg), (ctx, cb, arg))   \
  /* libssl: connections */                                                  \
  X(SSL*, SSL_new, (SSL_CTX * ctx), (ctx))                                   \
  X(void, SSL_free, (SSL * s), (s))                                          \
  X(long, SSL_ctrl, (SSL * s, int cmd, long larg, void* parg),               \
    (s, cmd, larg, parg))                                                    \
  X(SSL_CTX*, SSL_get_SSL_CTX, (const SSL* s), (s))                          \
  X(SSL_CTX*, SSL_set_SSL_CTX, (SSL * s, SSL_CTX * ctx), (s, ctx))           \
  X(int, SSL_set_fd, (SSL * s, int fd), (s, fd))                             \
  X(X509_VERIFY_PARAM*, SSL_get0_param, (SSL * s), (s))                      \
  X(int, SSL_set1_host, (SSL * s, const char* name), (s, name))              \
  X(int, SSL_connect, (SSL * s), (s))                                        \
  X(int, SSL_read, (SSL * s, void* buf, int n), (s, buf, n))                 \
  X(int, SSL_write, (SSL * s, const void* buf, int n), (s, buf, n))          \
  X(int, SSL_get_error, (const SSL* s, int ret), (s, ret))                   \
  X(long, SSL_get_verify_result, (const SSL* s), (s))

namespace rnic {
namespace {

// libssl.so.3 names libcrypto.so.3 as its dependency: one dlopen() maps both.
constexpr const char* kLibrary = "libssl.so.3";

struct Functions {
#define RNIC_POINTER(ret, name, params, args) decltype(&::name) name = nullptr;
  RNIC_OPENSSL_FUNCTIONS(RNIC_POINTER)
#undef RNIC_POINTER
};

struct Loaded {
  Functions fn;
  std::string error;  // empty once every function is resolved
};

Loaded Load() {
  Loaded l;
  // RTLD_LOCAL: OpenSSL's symbols stay out of the global scope.
  void* h = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = dlerror();
    l.error = std::string("cannot load ") + kLibrary + ": " +
              (e != nullptr ? e : "unknown error");
    return l;
  }
  // dlsym on libssl's own handle searches libssl and its dependencies only:
  // RTLD_DEFAULT could find the forwarding definitions below.
#define RNIC_RESOLVE(ret, name, params, args)                              \
  l.fn.name = reinterpret_cast<decltype(l.fn.name)>(dlsym(h, #name));      \
  if (l.fn.name == nullptr) {                                              \
    l.error = std::string(kLibrary) + " lacks " #name " (not OpenSSL 3?)"; \
    return l;                                                              \
  }
  RNIC_OPENSSL_FUNCTIONS(RNIC_RESOLVE)
#undef RNIC_RESOLVE
  return l;
}

const Loaded& State() {
  static const Loaded loaded = Load();  // once, thread-safe
  return loaded;
}

[[noreturn, gnu::cold]] void Unavailable(const char* name) {
  // Unreachable: every path into OpenSSL calls LoadOpenSsl() first and stops
  // on its error. Should one not, stop with a message rather than jump to 0.
  std::fprintf(stderr,
               "rnic_exporter: internal error: %s called but OpenSSL is not "
               "available: %s\n",
               name, State().error.c_str());
  std::abort();
}

}  // namespace

Status LoadOpenSsl() {
  const Loaded& l = State();
  if (!l.error.empty()) return Error{l.error};
  return Status::Ok();
}

}  // namespace rnic

// The forwarding definitions. Hidden: they never reach the executable's
// dynamic symbol table, so they cannot interpose on libssl's and libcrypto's
// calls to their own functions.
#define RNIC_FORWARD(ret, name, params, args)                        \
  extern "C" __attribute__((visibility("hidden"))) ret name params { \
    const rnic::Loaded& l = rnic::State();                           \
    if (!l.error.empty()) rnic::Unavailable(#name);                  \
    return l.fn.name args;                                           \
  }
RNIC_OPENSSL_FUNCTIONS(RNIC_FORWARD)
#undef RNIC_FORWARD
