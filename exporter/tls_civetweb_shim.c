/* Debian 12's libcivetweb 1.15 dlopen()s "libssl.so" and "libcrypto.so" at
 * run time and looks up OpenSSL 1.1 names. OpenSSL 3 kept all of them but
 * one: SSL_get_peer_certificate is only a macro for SSL_get1_peer_certificate
 * now, so CivetWeb's TLS setup fails. This library, installed as libssl.so in
 * a private directory that the exporter's RPATH names, exports that symbol
 * and pulls in the real libssl.so.3 (and libcrypto.so.3), where CivetWeb's
 * dlsym() finds everything else. */
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate
X509 *SSL_get_peer_certificate(const SSL *s);

/* Same reference semantics: OpenSSL 1.1's function also returned a new
 * reference, which CivetWeb frees. */
X509 *SSL_get_peer_certificate(const SSL *s) {
  return SSL_get1_peer_certificate(s);
}
