/* Installed as libcrypto.so next to the libssl.so shim: CivetWeb dlopen()s
 * the unversioned name, which only libssl-dev provides. Empty; it depends on
 * libcrypto.so.3, where dlsym() on its handle finds every symbol. */
typedef int rnic_exporter_crypto_shim_unused;
