// The settings the verbs probe (`probe:`) and the fabric probe (`fabric:`)
// share, each declared once with one set of limits, so both sections read
// and document them alike. Two limits are the section's by nature and are
// passed in: the largest message its transport carries (sizes) and the
// operations its engine can run.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "collectors/common/config_schema.h"
#include "collectors/probing/operation.h"

namespace rnic::probe::knobs {

[[nodiscard]] const config::KeyDef<bool>& Enabled();
// Time between round starts: 10ms..1h.
[[nodiscard]] const config::KeyDef<std::chrono::milliseconds>& Interval();
// Timed iterations of each operation and size per round: 1..10000.
[[nodiscard]] const config::KeyDef<int>& Iterations();
// Per-operation completion timeout: 1ms..1m.
[[nodiscard]] const config::KeyDef<std::chrono::milliseconds>& Timeout();
// Average share of one core, 0..100 (fractions allowed; 0: no limit).
[[nodiscard]] const config::KeyDef<double>& CpuBudgetPercent();
// Message sizes, 1..`max_message` bytes, `4KiB` style accepted; non-empty.
[[nodiscard]] config::KeyDef<std::vector<std::uint32_t>> Sizes(
    std::uint32_t max_message);
// Operation names (aliases cmp_swap, fetch_add), each of `supported`;
// non-empty, repeats dropped.
[[nodiscard]] config::KeyDef<std::vector<Operation>> Operations(
    const std::vector<Operation>& supported);

}  // namespace rnic::probe::knobs
