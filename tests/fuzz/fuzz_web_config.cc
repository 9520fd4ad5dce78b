// --web.config.file (exporter-toolkit schema): the YAML text through the
// parser main() calls. File paths in it resolve under a directory that does
// not exist, so certificates are never read; bcrypt hashes are checked for
// form and cost only. Nothing is caught that main() would not catch.
#include <cstddef>
#include <cstdint>
#include <string>

#include "exporter/web_config.h"

namespace {
std::size_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = rnic::ParseWebConfig(text, "/nonexistent-fuzz-dir");
  g_sink = c.ok() ? c->users.size() + c->headers.size() + (c->tls ? 1 : 0)
                  : c.error().message.size();
  return 0;
}
