// Parsers for the PCIe attributes of /sys/bus/pci/devices/<bdf>. Pure
// functions on text, so every kernel's spelling is a unit test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"

namespace rnic::pcie {

// current_link_speed / max_link_speed: "16.0 GT/s PCIe" (Linux 5.3+),
// "8 GT/s" and "2.5 GT/s" (older kernels) -> transfers per second per lane
// (16e9). nullopt for "Unknown" / "Unknown speed" (VFs, a link down) and
// anything else that is not "<number> GT/s".
[[nodiscard]] std::optional<double> ParseLinkSpeed(std::string_view text);

// current_link_width / max_link_width: "16" -> 16. nullopt for 0 (the
// kernel's answer when it does not know) and for anything not decimal.
[[nodiscard]] std::optional<int> ParseLinkWidth(std::string_view text);

struct AerCount {
  std::string error;  // the kernel's name: "RxErr", "BadTLP", "CmpltTO"
  std::uint64_t count = 0;
};

// aer_dev_correctable / aer_dev_nonfatal / aer_dev_fatal: one "<Name>
// <count>" line per error type, then TOTAL_ERR_COR / TOTAL_ERR_NONFATAL /
// TOTAL_ERR_FATAL, which is left out (the sum of the others). An error
// names the first malformed line.
[[nodiscard]] Result<std::vector<AerCount>> ParseAerCounters(
    std::string_view text);

}  // namespace rnic::pcie
