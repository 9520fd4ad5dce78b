// ethtool over generic netlink (the "ethtool" family, Linux >= 5.6), on the
// project's one netlink stack (collectors/netlink: NetlinkTransport,
// AttrWriter, Attrs). Request builders and reply parsers are pure functions
// (unit tests and tests/fuzz/fuzz_ethtool_nl feed them bytes); EthtoolNetlink
// strings them together over a transport.
//
// Replay keys: "GENL_GETFAMILY_ethtool", "ETHTOOL_FEC_GET_<netdev>",
// "ETHTOOL_STATS_GET_<netdev>",
// "ETHTOOL_MODULE_EEPROM_GET_<netdev>_p<page>_b<bank>_o<offset>" (with
// "_a<i2c address hex>" appended for an address other than 0x50).
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic::ethtool {

// ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS.
struct FecInfo {
  // Active FEC mode: "none", "rs", "baser", "llrs", "" when the driver does
  // not say (ETHTOOL_A_FEC_ACTIVE absent), "linkmode<n>" for a newer bit.
  std::string active;
  std::optional<bool> auto_mode;  // ETHTOOL_A_FEC_AUTO
  // Each: empty when the driver does not count it; else [0] is the total and
  // [1..] the lanes, when the driver counts per lane (the kernel's layout).
  std::vector<std::uint64_t> corrected;
  std::vector<std::uint64_t> uncorrectable;
  std::vector<std::uint64_t> corrected_bits;
};

// One counter of ETHTOOL_MSG_STATS_GET.
struct StdStat {
  std::uint32_t group = 0;  // ETHTOOL_STATS_ETH_PHY, ...
  std::uint32_t id = 0;     // ETHTOOL_A_STATS_<group>_*
  std::uint64_t value = 0;
};

// One bucket of a frame-size histogram (ETHTOOL_A_STATS_GRP_HIST_RX/_TX in
// the rmon group; net/ethtool/stats.c stats_put_rmon_hist). Bounds in octets,
// both inclusive; high == 0 is an open-ended last bucket ("1519 to max", as
// ethtool(8) prints it).
struct HistBucket {
  std::uint32_t group = 0;  // ETHTOOL_STATS_RMON
  bool tx = false;          // false: _HIST_RX, true: _HIST_TX
  std::uint32_t low = 0;
  std::uint32_t high = 0;  // 0: no upper bound
  std::uint64_t value = 0;
};

// What one ETHTOOL_MSG_STATS_GET reply holds.
struct StatsReply {
  std::vector<StdStat> stats;
  std::vector<HistBucket> hist;
  // Histogram nests left out as malformed (a bound or the value missing or
  // truncated, low above high, both bounds 0): they cost only their bucket.
  std::size_t bad_buckets = 0;
};

// The standard statistics groups asked for (those this exporter names).
inline constexpr std::uint32_t kStdGroupCount = 4;  // phy, mac, ctrl, rmon
// "eth_phy", "eth_mac", "eth_ctrl", "rmon"; "" for a group we do not know.
[[nodiscard]] std::string_view GroupName(std::uint32_t group);
// The IEEE 802.3 / RFC 2819 attribute the kernel counts, as `ethtool -S
// --groups` prints it ("SymbolErrorDuringCarrier"), and its metric-name part
// ("symbol_error_during_carrier"); empty for an id we do not know.
struct StatName {
  std::string_view ieee;
  std::string_view metric;
};
[[nodiscard]] StatName StdStatName(std::uint32_t group, std::uint32_t id);

// A module EEPROM window (ETHTOOL_MSG_MODULE_EEPROM_GET): 128-byte pages,
// offsets 0..127 the lower page, 128..255 the upper page `page` of `bank`.
// The kernel (net/ethtool/eeprom.c) refuses a window across offset 128 or
// 256, a lower half of a page other than 0, and an address above 0x7f.
struct EepromWindow {
  std::uint8_t page = 0;
  std::uint8_t bank = 0;
  std::uint32_t offset = 0;
  std::uint32_t length = 128;  // <= 128, within one half page
  // 0x50: SFF-8636, CMIS, SFF-8472 A0h; 0x51: SFF-8472 A2h (diagnostics).
  std::uint8_t i2c_address = 0x50;
};

// Request builders.
[[nodiscard]] nl::Request GetFamilyRequest(std::string_view family);
[[nodiscard]] nl::Request FecRequest(std::uint16_t family,
                                     std::string_view netdev);
[[nodiscard]] nl::Request StatsRequest(std::uint16_t family,
                                       std::string_view netdev);
[[nodiscard]] nl::Request EepromRequest(std::uint16_t family,
                                        std::string_view netdev,
                                        const EepromWindow& w);

// Reply parsers: one reply message each. Malformed input is an error.
[[nodiscard]] Result<std::uint16_t> ParseFamilyReply(const nlmsghdr& msg);
[[nodiscard]] Result<FecInfo> ParseFecReply(const nlmsghdr& msg);
// Appends the counters and histogram buckets of one reply to `out`.
[[nodiscard]] Status ParseStatsReply(const nlmsghdr& msg, StatsReply& out);
[[nodiscard]] Result<std::vector<std::uint8_t>> ParseEepromReply(
    const nlmsghdr& msg);

// The client: resolves the family once, then asks per netdev. Not
// thread-safe (one transport, one socket): each thread owns its own.
class EthtoolNetlink {
 public:
  // Resolves the "ethtool" family (CTRL_CMD_GETFAMILY). ENOENT: the kernel
  // has no ethtool netlink.
  [[nodiscard]] static Result<EthtoolNetlink> Open(nl::NetlinkTransport& t);

  [[nodiscard]] Result<FecInfo> Fec(std::string_view netdev);
  [[nodiscard]] Result<StatsReply> Stats(std::string_view netdev);
  [[nodiscard]] Result<std::vector<std::uint8_t>> ReadEeprom(
      std::string_view netdev, const EepromWindow& w);
  [[nodiscard]] std::uint16_t family() const { return family_; }

 private:
  EthtoolNetlink(nl::NetlinkTransport& t, std::uint16_t family)
      : transport_(&t), family_(family) {}
  nl::NetlinkTransport* transport_;
  std::uint16_t family_;
};

}  // namespace rnic::ethtool
