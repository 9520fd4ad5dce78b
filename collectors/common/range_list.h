// Kernel range lists: "0-3,8,60-63" as in cpumask/cpulist files and PMU
// format files.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

// "0-3,8" -> {{0,3},{8,8}}; empty text -> {}. Ranges must be lo <= hi, >= 0.
[[nodiscard]] Result<std::vector<std::pair<int, int>>> ParseRangeList(
    std::string_view text);
// Above Linux's largest NR_CPUS (8192): a list naming a CPU number or
// holding more CPUs than this is refused, not expanded.
inline constexpr int kMaxCpus = 65536;

// "0-2,5" -> {0,1,2,5}.
[[nodiscard]] Result<std::vector<int>> ParseCpuList(std::string_view text);

}  // namespace rnic
