// Command-line flags, one argument a line: ParseFlags with every collector's
// options (bools, durations, integers, regexes). Seeds: the flags of the
// shipped systemd unit and Debian defaults, and of the README examples.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector_spec.h"
#include "exporter/flags.h"

namespace {
std::size_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static const auto& specs = rnic::AllCollectors();
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    args.emplace_back(rest.substr(0, nl));
    rest =
        nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  if (auto o = rnic::ParseFlags(args, specs); o.ok())
    g_sink = o->collectors.size() + o->listen_addresses.size();
  return 0;
}
