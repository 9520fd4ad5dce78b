// What a PMU says about itself in sysfs (bus/event_source/devices/<pmu>):
// its perf type, the CPUs to open it on, the format fields that place event
// terms into perf_event_attr.config{,1,2}, and its named events with scale
// and unit. Encoding event strings through these files is how the kernel
// intends hardware PMUs to be used without a per-model table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/common/range_list.h"  // ParseCpuList
#include "collectors/common/result.h"

namespace rnic {

struct PmuFormat {
  int config_word = 0;  // 0: config, 1: config1, 2: config2
  std::vector<std::pair<int, int>>
      bits;  // inclusive [lo, hi] ranges, low bits first
};

struct PmuEvent {
  std::string terms;  // e.g. "event=0x3c,umask=0x00"
  double scale = 1.0;
  std::string unit;
};

struct Pmu {
  std::string name;
  std::uint32_t type = 0;
  std::vector<int> cpus;  // from cpumask; empty: any CPU
  std::map<std::string, PmuFormat> formats;
  std::map<std::string, PmuEvent> events;
};

struct EncodedEvent {
  std::uint64_t config[3] = {0, 0, 0};
  double scale = 1.0;
  std::string unit;
};

[[nodiscard]] Result<std::vector<std::string>> ListPmus(
    const std::string& sysfs);
[[nodiscard]] Result<Pmu> LoadPmu(const std::string& sysfs,
                                  const std::string& name);

// "config:0-7,21", "config1:0-15" -> PmuFormat.
[[nodiscard]] Result<PmuFormat> ParsePmuFormat(std::string_view text);
// An event name of the PMU, or terms "a=0x1,b=2,flag" (a term without a value
// sets 1). Terms must name a format of the PMU or be config/config1/config2.
[[nodiscard]] Result<EncodedEvent> EncodeEvent(const Pmu& pmu,
                                               std::string_view spec);

}  // namespace rnic
