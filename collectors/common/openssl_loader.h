// OpenSSL is loaded on first need, not linked: mapping libssl.so.3 and
// libcrypto.so.3 costs about 1.7 MiB of resident memory (relocations,
// constructors) that an exporter without TLS, basic auth or an https fabric
// exchange should not pay.
//
// openssl_loader.cc defines, with the OpenSSL headers' own signatures, every
// OpenSSL function the project calls; each forwards to the real one, looked
// up in libssl.so.3 (and its libcrypto.so.3) dlopen()ed by LoadOpenSsl().
// Call sites keep calling OpenSSL as usual, after LoadOpenSsl() succeeded.
#pragma once

#include "collectors/common/result.h"

namespace rnic {

// Loads OpenSSL once (thread-safe); later calls return the first outcome.
// The error says what is missing ("cannot load libssl.so.3: ..."); callers
// prefix the setting that needs it.
[[nodiscard]] Status LoadOpenSsl();

}  // namespace rnic
