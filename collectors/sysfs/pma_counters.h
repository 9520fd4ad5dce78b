// The IB PMA port counters the kernel publishes in ports/N/counters/ (and, on
// kernels before 4.5, the 64-bit ones in ports/N/counters_ext/): their
// family names in base units, HELP, and the width at which they saturate.
//
// Widths come from the kernel's PORT_PMA_ATTR table (drivers/infiniband/
// core/sysfs.c). Data and packet counters are 32 bits in the PortCounters
// attribute set and 64 bits in PortCountersExtended; the kernel shows the
// extended set in counters/ when the PMA supports it, which is visible from
// the unicast/multicast files that exist only in that set.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "collectors/metrics/family.h"

namespace rnic::sysfs {

// The quantity a counter measures, so that a 64-bit counters_ext/ file can
// replace the 32-bit counters/ file for the same quantity.
enum class PmaQuantity {
  kOther,
  kXmitData,
  kRcvData,
  kXmitPackets,
  kRcvPackets,
  kUnicastXmit,
  kUnicastRcv,
  kMulticastXmit,
  kMulticastRcv,
};

struct PmaCounterInfo {
  std::string_view kernel_name;
  std::string_view family;
  std::string_view help;
  int width;       // saturation width in counters/ (PortCounters)
  int multiplier;  // 4 for the data counters (4-octet units)
  PmaQuantity quantity;
};

// Looks a file of counters/ (ext_dir=false) or counters_ext/ (ext_dir=true)
// up; nullptr for names the kernel does not define.
[[nodiscard]] const PmaCounterInfo* FindPmaCounter(std::string_view name,
                                                   bool ext_dir);

// Every known counters/ entry (for docs).
[[nodiscard]] std::span<const PmaCounterInfo> AllPmaCounters();

// Data/packet counters are 64-bit in counters/ when the extended set is
// shown; this file exists only then.
inline constexpr std::string_view kPmaExtendedMarker = "unicast_xmit_packets";

// Family for a counters/ file the table does not know.
[[nodiscard]] std::string UnknownPmaFamily(std::string_view name);

// The family of a known counter: declared by the table above (interned once).
[[nodiscard]] const FamilyDesc& PmaFamily(const PmaCounterInfo& info);

}  // namespace rnic::sysfs
