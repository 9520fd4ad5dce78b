// Kernel range lists ("0-3,8,60-63"): cpulist/cpumask files and the bit
// ranges of PMU format files. ParseCpuList expands the ranges, so its
// output size is what a hostile "0-2147483647" would blow up. Seeds: the
// cpulist, cpumask and format/ files of the fixtures.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/common/range_list.h"

namespace {
std::size_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t sink = 0;
  if (auto r = rnic::ParseRangeList(text); r.ok()) sink += r->size();
  if (auto c = rnic::ParseCpuList(text); c.ok()) sink += c->size();
  g_sink = sink;
  return 0;
}
