// Decoding of pluggable-module diagnostics from EEPROM pages read with
// ETHTOOL_MSG_MODULE_EEPROM_GET: SFF-8636 (QSFP/QSFP+/QSFP28, SFF-8024
// identifiers 0x0c/0x0d/0x11), CMIS (QSFP-DD 0x18, OSFP 0x19, QSFP+ CMIS
// 0x1e) and SFF-8472 (SFP/SFP+/SFP28 0x03). Pure functions over bytes: the
// poller reads the pages that PagesToRead() and WantsA2h() name and Decode()
// turns them into base units (celsius, volts, amperes, watts). Byte offsets
// are those of SFF-8636 rev 2.10a, CMIS rev 5.2 and SFF-8472 rev 12.4 (the
// same ones ethtool's qsfp.c, cmis.c and sfpdiag.c use).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"

namespace rnic::optics {

enum class Spec { kSff8636, kCmis, kSff8472 };
// "sff8636", "cmis", "sff8472"
[[nodiscard]] std::string_view SpecName(Spec spec);

using Page = std::array<std::uint8_t, 128>;

// An upper page (bytes 128..255 of the address space) of a bank.
struct PageId {
  std::uint8_t bank = 0;
  std::uint8_t page = 0;
  auto operator<=>(const PageId&) const = default;
};

struct ModulePages {
  Page lower{};                  // bytes 0..127 (page 00h lower half)
  std::map<PageId, Page> upper;  // bytes 128..255 of each page read
  // SFF-8472 only: bytes 0..127 of the diagnostics at I2C address 0x51
  // (A2h), read when WantsA2h(); `lower` is then A0h (address 0x50).
  std::optional<Page> a2h;
};

// SFF-8472's diagnostics address (7-bit; A2h as an 8-bit write address).
inline constexpr std::uint8_t kSff8472DiagAddress = 0x51;

// Which spec the module follows, from byte 0 (SFF-8024 identifier); an
// error for anything else.
[[nodiscard]] Result<Spec> Identify(std::span<const std::uint8_t> lower);
// The upper pages Decode() wants for this module: for SFF-8636 and CMIS
// 00h always, the threshold and lane pages unless the module is flat
// memory; none for SFF-8472 (its A0h upper half holds nothing decoded).
[[nodiscard]] std::vector<PageId> PagesToRead(
    Spec spec, std::span<const std::uint8_t> lower);
// CMIS: the lane page 11h of each bank beyond 0 the module advertises (page
// 01h byte 142, CMIS 5.2 Table 8-41: lanes 9-16 in bank 1, 17-24 in bank 2,
// 25-32 in bank 3), once the pages PagesToRead() named are in `pages`.
// Empty for other specs, flat memory, or a module with bank 0 only. Decode()
// takes the banks in order and stops at the first one not read.
[[nodiscard]] std::vector<PageId> BankPagesToRead(Spec spec,
                                                  const ModulePages& pages);
// SFF-8472: whether Decode() wants A2h bytes 0..127, i.e. the module says
// it implements digital diagnostics (A0h byte 92 bit 6) and needs no
// address change sequence to reach them (bit 2). False for other specs.
[[nodiscard]] bool WantsA2h(Spec spec, std::span<const std::uint8_t> lower);

// Latched alarm and warning flags of one quantity.
struct Flags {
  bool high_alarm = false;
  bool low_alarm = false;
  bool high_warning = false;
  bool low_warning = false;
};

// The module's own thresholds of one quantity, in base units.
struct Thresholds {
  double high_alarm = 0;
  double low_alarm = 0;
  double high_warning = 0;
  double low_warning = 0;
};

// Lane fault and loss flags (latched in SFF-8636 and CMIS: set since the
// module was last read; SFF-8472's status bits are live).
struct LaneFaults {
  bool tx_fault = false;
  bool tx_los = false;
  bool rx_los = false;
  bool tx_cdr_lol = false;  // CDR loss of lock
  bool rx_cdr_lol = false;
};

struct Lane {
  LaneFaults faults;
  std::optional<double> tx_bias_amperes;
  std::optional<double> tx_power_watts;
  std::optional<double> rx_power_watts;
  Flags tx_bias_flags;
  Flags tx_power_flags;
  Flags rx_power_flags;
};

struct Diagnostics {
  Spec spec = Spec::kSff8636;
  std::uint8_t identifier = 0;
  std::string type;  // "QSFP28", "QSFP-DD", "SFP", ...
  std::string vendor, part_number, revision, serial;
  bool flat_memory = false;
  // False: the module identified itself but has no monitors we export (an
  // SFP without digital diagnostics); only the identity above is valid and
  // `no_monitors_reason` says why, for one log line.
  bool monitors = true;
  std::string no_monitors_reason;
  double temperature_celsius = 0;
  double supply_voltage_volts = 0;
  Flags temperature_flags, supply_voltage_flags;
  // Absent on flat-memory modules (no threshold page).
  struct AllThresholds {
    Thresholds temperature, supply_voltage, tx_bias, tx_power, rx_power;
  };
  std::optional<AllThresholds> thresholds;
  std::vector<Lane> lanes;  // lane 1 first; empty on flat-memory modules
};

// Decodes what PagesToRead() named. A missing page the spec needs, or an
// identifier Identify() refuses, is an error.
[[nodiscard]] Result<Diagnostics> Decode(const ModulePages& pages);

}  // namespace rnic::optics
