/* Why Debian 12's CivetWeb needs this. libcivetweb1 1.15 is built for the
 * OpenSSL 1.1 API and does not link OpenSSL: when the exporter serves TLS
 * (mg_init_library(MG_FEATURES_SSL)), CivetWeb dlopen()s "libssl.so" and
 * "libcrypto.so" and looks up every OpenSSL function it uses by its 1.1 name
 * with dlsym(); a single name it cannot find fails TLS start-up. On Debian 12
 * (OpenSSL 3) that goes wrong twice:
 *  - SSL_get_peer_certificate, on CivetWeb's list, is only a macro for
 *    SSL_get1_peer_certificate in OpenSSL 3: libssl.so.3 has no such symbol;
 *  - the unversioned names are libssl-dev's symlinks, absent where only the
 *    runtime package libssl3 is installed.
 * This library is installed as libssl.so in a private directory that the
 * exporter's DT_RPATH names (exporter/CMakeLists.txt). It defines that one
 * function and depends on libssl.so.3 and libcrypto.so.3, where CivetWeb's
 * dlsym() on its handle finds everything else. The exporter's own OpenSSL
 * calls are linked as usual; this is for CivetWeb only. */
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate
X509 *SSL_get_peer_certificate(const SSL *s);

/* Same reference semantics: OpenSSL 1.1's function also returned a new
 * reference, which CivetWeb frees. */
X509 *SSL_get_peer_certificate(const SSL *s) {
  return SSL_get1_peer_certificate(s);
}
