// Parsers for the text formats of /sys/class/infiniband attributes. Pure
// functions on string_views, no allocation on success.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rnic::sysfs {

// Outcome of parsing one counter file.
enum class ValueStatus {
  kOk,
  kNotAvailable,  // "N/A (no PMA)" and similar: the kernel has no value
  kMalformed,     // anything else that is not a decimal u64
};

struct ParsedValue {
  ValueStatus status = ValueStatus::kMalformed;
  std::uint64_t value = 0;
};

// Drops trailing newlines/blanks (sysfs values end in '\n').
[[nodiscard]] std::string_view TrimValue(std::string_view text);

// Decimal unsigned 64-bit value, as printed by "%llu\n" / "%u\n".
[[nodiscard]] ParsedValue ParseCounterValue(std::string_view text);

// "0x1a" (lid, sm_lid) or plain decimal.
[[nodiscard]] std::optional<std::uint64_t> ParseHexOrDecimal(
    std::string_view text);

// "4: ACTIVE", "5: LinkUp", "1: CA": the number before the colon and the
// name after it.
struct NumberedName {
  std::uint32_t number = 0;
  std::string_view name;
};
[[nodiscard]] std::optional<NumberedName> ParseNumberedName(
    std::string_view text);

// Port rate: "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)",
// "14 Gb/sec" -> bytes per second (Gb/s * 1e9 / 8). Accepts Mb/sec and
// Kb/sec too. nullopt for anything that is not "<number> <unit>/sec ...".
[[nodiscard]] std::optional<double> ParseRateBytesPerSecond(
    std::string_view text);

// True when `name` is a PCI address "dddd:bb:dd.f" (hex digits).
[[nodiscard]] bool IsPciAddress(std::string_view name);

// The PCI root bus ("0000:80") a resolved sysfs device path sits under: its
// "pci<domain>:<bus>" component (/sys/devices/pci0000:80/0000:80:01.0/...).
// "" when the path has none (virtual devices).
[[nodiscard]] std::string_view PciRootBus(std::string_view resolved_path);

}  // namespace rnic::sysfs
