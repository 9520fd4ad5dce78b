// Names, HELP texts and widths of driver hardware counters (sysfs
// hw_counters/ and netlink STAT_GET carry the same names and values).
// NOTE: minimal version written on branch `netlink`; the sysfs collector's
// engineer owns this file and its description table (same API).
#pragma once

#include <string>
#include <string_view>

namespace rnic {

// "rnic_hw_<counter>_total"; characters outside [a-zA-Z0-9_] become '_'.
[[nodiscard]] std::string HwCounterFamilyName(std::string_view counter);
// Meaning of the counter plus its kernel name; a generic text for names the
// table does not know (a counter is never dropped for being unknown).
[[nodiscard]] std::string HwCounterHelp(std::string_view counter);
// Width at which the kernel's value wraps: 32 for counters drivers read
// from 32-bit hardware registers (mlx5 Q counters), else 64.
[[nodiscard]] int HwCounterWidthBits(std::string_view counter);

}  // namespace rnic
