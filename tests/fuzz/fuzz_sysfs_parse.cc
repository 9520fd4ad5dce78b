// sysfs attribute text (counters, "4: ACTIVE", lids, rates, PCI names):
// every parser of collectors/host/sysfs_parse.h on the same bytes. Seeds:
// the files of tests/fixtures/sys.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/host/sysfs_parse.h"

namespace {
std::uint64_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace rnic::sysfs;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::uint64_t sink = TrimValue(text).size();
  const ParsedValue v = ParseCounterValue(text);
  sink += v.value + static_cast<int>(v.status);
  if (auto h = ParseHexOrDecimal(text)) sink += *h;
  if (auto n = ParseNumberedName(text)) sink += n->number + n->name.size();
  if (auto r = ParseRateBytesPerSecond(text)) sink += *r > 0 ? 1 : 0;
  sink += IsPciAddress(text) ? 1 : 0;
  g_sink = sink;
  return 0;
}
