// PMU sysfs formats and perf event specs. The input is lines:
//   "f <name> <format>"  a format/ file ("config:0-7,21"), ParsePmuFormat
//   "e <name> <terms>"   an events/ file ("event=0x83,umask=0x4")
//   anything else        an event spec from the config, EncodeEvent
// Seeds: each fixture PMU's format/ and events/ files, then its events and
// the specs of the shipped example config.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/perf/pmu_catalog.h"

namespace {

std::uint64_t g_sink;

// "<name> <rest>" -> {name, rest}.
std::pair<std::string, std::string_view> NameAndRest(std::string_view s) {
  const auto sp = s.find(' ');
  if (sp == std::string_view::npos) return {std::string(s), {}};
  return {std::string(s.substr(0, sp)), s.substr(sp + 1)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  rnic::Pmu pmu;
  pmu.name = "fuzz";
  std::uint64_t sink = 0;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest =
        nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.starts_with("f ")) {
      auto [name, text] = NameAndRest(line.substr(2));
      if (auto f = rnic::ParsePmuFormat(text); f.ok())
        pmu.formats[name] = std::move(f).value();
    } else if (line.starts_with("e ")) {
      auto [name, text] = NameAndRest(line.substr(2));
      pmu.events[name].terms = std::string(text);
    } else if (auto e = rnic::EncodeEvent(pmu, line); e.ok()) {
      sink += e->config[0] ^ e->config[1] ^ e->config[2];
    }
  }
  g_sink = sink;
  return 0;
}
