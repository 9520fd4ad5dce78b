// `ethtool -S` text (the roce collector's replay source) and the stat names
// the roce collector classifies (from ETHTOOL_GSTRINGS, i.e. the driver).
// Seeds: tests/fixtures/roce/ethtool/*.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/roce/ethtool_names.h"
#include "collectors/roce/ethtool_stats.h"

namespace {
std::size_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t sink = 0;
  if (auto snap = rnic::ParseEthtoolSOutput(text); snap.ok()) {
    for (const auto& name : *snap->names) {
      if (auto s = rnic::ClassifyEthtoolName(name))
        sink += static_cast<std::size_t>(s->priority + 1);
    }
  }
  // Each line as a name, the way the kernel hands them over.
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    if (auto s = rnic::ClassifyEthtoolName(rest.substr(0, nl)))
      sink += s->direction.size();
    rest =
        nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  g_sink = sink;
  return 0;
}
