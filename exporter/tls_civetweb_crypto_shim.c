/* Installed as libcrypto.so next to the libssl.so shim
 * (tls_civetweb_shim.c says why): Debian 12's CivetWeb also dlopen()s
 * "libcrypto.so", a name only libssl-dev provides. Empty; it depends on
 * libcrypto.so.3, where dlsym() on its handle finds every symbol. */
typedef int rnic_exporter_crypto_shim_unused;
