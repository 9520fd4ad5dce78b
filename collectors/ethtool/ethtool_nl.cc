#include "collectors/ethtool/ethtool_nl.h"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <array>
#include <cstring>
#include <utility>

#include "collectors/nl/attr_parser.h"
#include "collectors/nl/attr_writer.h"

namespace rnic::ethtool {
namespace {

using nl::AttrKind;
using nl::AttrView;

// Policies (expected kind per attribute number) of the nests we read,
// from linux/ethtool_netlink.h and linux/genetlink.h.
template <std::size_t N>
using Policy = std::array<AttrKind, N>;

constexpr auto kCtrlPolicy = [] {
  Policy<CTRL_ATTR_FAMILY_NAME + 1> p{};
  p[CTRL_ATTR_FAMILY_ID] = AttrKind::kU16;
  p[CTRL_ATTR_FAMILY_NAME] = AttrKind::kString;
  return p;
}();

constexpr auto kFecPolicy = [] {
  Policy<ETHTOOL_A_FEC_STATS + 1> p{};
  p[ETHTOOL_A_FEC_HEADER] = AttrKind::kNested;
  p[ETHTOOL_A_FEC_MODES] = AttrKind::kNested;
  p[ETHTOOL_A_FEC_AUTO] = AttrKind::kU8;
  p[ETHTOOL_A_FEC_ACTIVE] = AttrKind::kU32;
  p[ETHTOOL_A_FEC_STATS] = AttrKind::kNested;
  return p;
}();

constexpr auto kFecStatPolicy = [] {
  Policy<ETHTOOL_A_FEC_STAT_CORR_BITS + 1> p{};
  p[ETHTOOL_A_FEC_STAT_CORRECTED] = AttrKind::kBinary;
  p[ETHTOOL_A_FEC_STAT_UNCORR] = AttrKind::kBinary;
  p[ETHTOOL_A_FEC_STAT_CORR_BITS] = AttrKind::kBinary;
  return p;
}();

constexpr auto kStatsGrpPolicy = [] {
  Policy<ETHTOOL_A_STATS_GRP_SS_ID + 1> p{};
  p[ETHTOOL_A_STATS_GRP_ID] = AttrKind::kU32;
  p[ETHTOOL_A_STATS_GRP_SS_ID] = AttrKind::kU32;
  return p;
}();

// Inside one ETHTOOL_A_STATS_GRP_HIST_RX/_TX nest (the attribute numbers
// continue the _A_STATS_GRP_* enum; _GRP_PAD is nla_put_u64_64bit's pad).
constexpr auto kHistPolicy = [] {
  Policy<ETHTOOL_A_STATS_GRP_HIST_VAL + 1> p{};
  p[ETHTOOL_A_STATS_GRP_HIST_BKT_LOW] = AttrKind::kU32;
  p[ETHTOOL_A_STATS_GRP_HIST_BKT_HI] = AttrKind::kU32;
  p[ETHTOOL_A_STATS_GRP_HIST_VAL] = AttrKind::kU64;
  return p;
}();

constexpr auto kEepromPolicy = [] {
  Policy<ETHTOOL_A_MODULE_EEPROM_DATA + 1> p{};
  p[ETHTOOL_A_MODULE_EEPROM_DATA] = AttrKind::kBinary;
  return p;
}();

// The attributes after the nlmsghdr and genlmsghdr of a reply.
Result<AttrView> GenlPayload(const nlmsghdr& msg, std::uint8_t want_cmd) {
  constexpr std::size_t kHead = NLMSG_HDRLEN + GENL_HDRLEN;
  if (msg.nlmsg_len < kHead) {
    return Error{"genetlink: short message", EBADMSG};
  }
  const auto* base = reinterpret_cast<const std::uint8_t*>(&msg);
  genlmsghdr genl;
  std::memcpy(&genl, base + NLMSG_HDRLEN, sizeof(genl));
  if (genl.cmd != want_cmd) {
    return Error{"genetlink: reply command " + std::to_string(genl.cmd) +
                     ", expected " + std::to_string(want_cmd),
                 EBADMSG};
  }
  const std::size_t len = msg.nlmsg_len - kHead;
  if (len > 0xffff) return Error{"genetlink: reply too long", EBADMSG};
  return AttrView{base + kHead, static_cast<std::uint16_t>(len)};
}

// A kernel u64 array attribute (FEC statistics). A length that is no
// multiple of 8 is malformed.
Result<std::vector<std::uint64_t>> U64Array(AttrView v) {
  if (v.len % sizeof(std::uint64_t) != 0) {
    return Error{"ethtool: FEC statistic is not an array of u64", EBADMSG};
  }
  std::vector<std::uint64_t> out(v.len / sizeof(std::uint64_t));
  if (!out.empty()) std::memcpy(out.data(), v.data, v.len);
  return out;
}

nl::Request GenlRequest(std::uint16_t family, std::uint8_t cmd,
                        std::uint8_t version, std::string name) {
  nl::Request r;
  r.cmd = cmd;
  r.msg_type = family;
  const genlmsghdr genl{cmd, version, 0};
  const auto* p = reinterpret_cast<const std::uint8_t*>(&genl);
  r.header.assign(p, p + sizeof(genl));
  r.name = std::move(name);
  return r;
}

void PutHeader(nl::AttrWriter& w, std::uint16_t type, std::string_view netdev,
               std::uint32_t flags) {
  const std::size_t nest = w.BeginNest(type);
  w.PutString(ETHTOOL_A_HEADER_DEV_NAME, netdev);
  if (flags != 0) w.PutU32(ETHTOOL_A_HEADER_FLAGS, flags);
  w.EndNest(nest);
}

struct GroupTable {
  std::string_view name;
  std::span<const StatName> stats;
};

// net/ethtool/stats.c names (stats_eth_*_names), indexed by attribute id.
constexpr StatName kPhyNames[] = {
    {"SymbolErrorDuringCarrier", "symbol_error_during_carrier"}};
constexpr StatName kMacNames[] = {
    {"FramesTransmittedOK", "frames_transmitted_ok"},
    {"SingleCollisionFrames", "single_collision_frames"},
    {"MultipleCollisionFrames", "multiple_collision_frames"},
    {"FramesReceivedOK", "frames_received_ok"},
    {"FrameCheckSequenceErrors", "frame_check_sequence_errors"},
    {"AlignmentErrors", "alignment_errors"},
    {"OctetsTransmittedOK", "octets_transmitted_ok"},
    {"FramesWithDeferredXmissions", "frames_with_deferred_xmissions"},
    {"LateCollisions", "late_collisions"},
    {"FramesAbortedDueToXSColls", "frames_aborted_due_to_xs_colls"},
    {"FramesLostDueToIntMACXmitError", "frames_lost_due_to_int_mac_xmit_error"},
    {"CarrierSenseErrors", "carrier_sense_errors"},
    {"OctetsReceivedOK", "octets_received_ok"},
    {"FramesLostDueToIntMACRcvError", "frames_lost_due_to_int_mac_rcv_error"},
    {"MulticastFramesXmittedOK", "multicast_frames_xmitted_ok"},
    {"BroadcastFramesXmittedOK", "broadcast_frames_xmitted_ok"},
    {"FramesWithExcessiveDeferral", "frames_with_excessive_deferral"},
    {"MulticastFramesReceivedOK", "multicast_frames_received_ok"},
    {"BroadcastFramesReceivedOK", "broadcast_frames_received_ok"},
    {"InRangeLengthErrors", "in_range_length_errors"},
    {"OutOfRangeLengthField", "out_of_range_length_field"},
    {"FrameTooLongErrors", "frame_too_long_errors"}};
constexpr StatName kCtrlNames[] = {
    {"MACControlFramesTransmitted", "mac_control_frames_transmitted"},
    {"MACControlFramesReceived", "mac_control_frames_received"},
    {"UnsupportedOpcodesReceived", "unsupported_opcodes_received"}};
constexpr StatName kRmonNames[] = {
    {"etherStatsUndersizePkts", "undersize_pkts"},
    {"etherStatsOversizePkts", "oversize_pkts"},
    {"etherStatsFragments", "fragments"},
    {"etherStatsJabbers", "jabbers"}};

static_assert(std::size(kPhyNames) == __ETHTOOL_A_STATS_ETH_PHY_CNT);
static_assert(std::size(kMacNames) == __ETHTOOL_A_STATS_ETH_MAC_CNT);
static_assert(std::size(kCtrlNames) == __ETHTOOL_A_STATS_ETH_CTRL_CNT);
static_assert(std::size(kRmonNames) == __ETHTOOL_A_STATS_RMON_CNT);
// Newer kernels add groups (phy, 6.13+): we ask for the first four only.
static_assert(kStdGroupCount <= __ETHTOOL_STATS_CNT);

constexpr GroupTable kGroups[kStdGroupCount] = {{"eth_phy", kPhyNames},
                                                {"eth_mac", kMacNames},
                                                {"eth_ctrl", kCtrlNames},
                                                {"rmon", kRmonNames}};

}  // namespace

std::string_view GroupName(std::uint32_t group) {
  return group < kStdGroupCount ? kGroups[group].name : std::string_view{};
}

StatName StdStatName(std::uint32_t group, std::uint32_t id) {
  if (group >= kStdGroupCount || id >= kGroups[group].stats.size()) return {};
  return kGroups[group].stats[id];
}

nl::Request GetFamilyRequest(std::string_view family) {
  nl::Request r = GenlRequest(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                              "GENL_GETFAMILY_" + std::string(family));
  nl::AttrWriter w;
  w.PutString(CTRL_ATTR_FAMILY_NAME, family);
  r.attrs = std::move(w).Take();
  return r;
}

nl::Request FecRequest(std::uint16_t family, std::string_view netdev) {
  nl::Request r = GenlRequest(family, ETHTOOL_MSG_FEC_GET, ETHTOOL_GENL_VERSION,
                              "ETHTOOL_FEC_GET_" + std::string(netdev));
  nl::AttrWriter w;
  PutHeader(w, ETHTOOL_A_FEC_HEADER, netdev,
            ETHTOOL_FLAG_STATS | ETHTOOL_FLAG_COMPACT_BITSETS);
  r.attrs = std::move(w).Take();
  return r;
}

nl::Request StatsRequest(std::uint16_t family, std::string_view netdev) {
  nl::Request r =
      GenlRequest(family, ETHTOOL_MSG_STATS_GET, ETHTOOL_GENL_VERSION,
                  "ETHTOOL_STATS_GET_" + std::string(netdev));
  nl::AttrWriter w;
  PutHeader(w, ETHTOOL_A_STATS_HEADER, netdev, 0);
  // The groups as a compact bitset with no mask: exactly these groups.
  const std::size_t groups = w.BeginNest(ETHTOOL_A_STATS_GROUPS);
  w.PutFlag(ETHTOOL_A_BITSET_NOMASK);
  w.PutU32(ETHTOOL_A_BITSET_SIZE, kStdGroupCount);
  const std::uint32_t bits = (1u << kStdGroupCount) - 1;
  w.PutBinary(
      ETHTOOL_A_BITSET_VALUE,
      std::span(reinterpret_cast<const std::uint8_t*>(&bits), sizeof(bits)));
  w.EndNest(groups);
  r.attrs = std::move(w).Take();
  return r;
}

namespace {
// Replay keys of the usual address (0x50) stay as they were.
std::string AddressSuffix(std::uint8_t address) {
  if (address == 0x50) return "";
  constexpr char kDigits[] = "0123456789abcdef";
  return std::string{'_', 'a', kDigits[address >> 4], kDigits[address & 0xf]};
}
}  // namespace

nl::Request EepromRequest(std::uint16_t family, std::string_view netdev,
                          const EepromWindow& win) {
  nl::Request r = GenlRequest(
      family, ETHTOOL_MSG_MODULE_EEPROM_GET, ETHTOOL_GENL_VERSION,
      "ETHTOOL_MODULE_EEPROM_GET_" + std::string(netdev) + "_p" +
          std::to_string(win.page) + "_b" + std::to_string(win.bank) + "_o" +
          std::to_string(win.offset) + AddressSuffix(win.i2c_address));
  nl::AttrWriter w;
  PutHeader(w, ETHTOOL_A_MODULE_EEPROM_HEADER, netdev, 0);
  w.PutU32(ETHTOOL_A_MODULE_EEPROM_OFFSET, win.offset);
  w.PutU32(ETHTOOL_A_MODULE_EEPROM_LENGTH, win.length);
  w.PutU8(ETHTOOL_A_MODULE_EEPROM_PAGE, win.page);
  w.PutU8(ETHTOOL_A_MODULE_EEPROM_BANK, win.bank);
  w.PutU8(ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, win.i2c_address);
  r.attrs = std::move(w).Take();
  return r;
}

Result<std::uint16_t> ParseFamilyReply(const nlmsghdr& msg) {
  auto payload = GenlPayload(msg, CTRL_CMD_NEWFAMILY);
  if (!payload) return payload.error();
  nl::Attrs a(kCtrlPolicy);
  if (Status st = a.Parse(payload->data, payload->len); !st.ok()) {
    return st.error();
  }
  auto id = a.U16(CTRL_ATTR_FAMILY_ID);
  if (!id) return Error{"genetlink: family reply without an id", EBADMSG};
  return *id;
}

Result<FecInfo> ParseFecReply(const nlmsghdr& msg) {
  auto payload = GenlPayload(msg, ETHTOOL_MSG_FEC_GET_REPLY);
  if (!payload) return payload.error();
  nl::Attrs a(kFecPolicy);
  if (Status st = a.Parse(payload->data, payload->len); !st.ok()) {
    return st.error();
  }
  FecInfo info;
  if (auto active = a.U32(ETHTOOL_A_FEC_ACTIVE)) {
    switch (*active) {
      case ETHTOOL_LINK_MODE_FEC_NONE_BIT:
        info.active = "none";
        break;
      case ETHTOOL_LINK_MODE_FEC_RS_BIT:
        info.active = "rs";
        break;
      case ETHTOOL_LINK_MODE_FEC_BASER_BIT:
        info.active = "baser";
        break;
      case ETHTOOL_LINK_MODE_FEC_LLRS_BIT:
        info.active = "llrs";
        break;
      default:
        info.active = "linkmode" + std::to_string(*active);
        break;
    }
  }
  if (auto a8 = a.U8(ETHTOOL_A_FEC_AUTO)) info.auto_mode = *a8 != 0;
  if (auto stats = a.Nested(ETHTOOL_A_FEC_STATS)) {
    nl::Attrs s(kFecStatPolicy);
    if (Status st = s.ParseNested(*stats); !st.ok()) return st.error();
    const std::pair<int, std::vector<std::uint64_t>*> fields[] = {
        {ETHTOOL_A_FEC_STAT_CORRECTED, &info.corrected},
        {ETHTOOL_A_FEC_STAT_UNCORR, &info.uncorrectable},
        {ETHTOOL_A_FEC_STAT_CORR_BITS, &info.corrected_bits}};
    for (const auto& [type, dst] : fields) {
      auto v = s.Binary(static_cast<std::uint16_t>(type));
      if (!v) continue;
      auto arr = U64Array(*v);
      if (!arr) return arr.error();
      *dst = std::move(*arr);
    }
  }
  return info;
}

namespace {

// One histogram nest: a bucket, or nothing when it is malformed (the kernel
// always puts both bounds and the value; both bounds 0 ends its range table,
// so never reaches the reply).
std::optional<HistBucket> ParseHistBucket(std::uint32_t group, bool tx,
                                          AttrView nest) {
  nl::Attrs h(kHistPolicy);
  if (!h.ParseNested(nest).ok()) return std::nullopt;
  auto low = h.U32(ETHTOOL_A_STATS_GRP_HIST_BKT_LOW);
  auto high = h.U32(ETHTOOL_A_STATS_GRP_HIST_BKT_HI);
  auto val = h.U64(ETHTOOL_A_STATS_GRP_HIST_VAL);
  if (!low || !high || !val) return std::nullopt;
  if ((*low == 0 && *high == 0) || (*high != 0 && *low > *high)) {
    return std::nullopt;
  }
  return HistBucket{group, tx, *low, *high, *val};
}

}  // namespace

Status ParseStatsReply(const nlmsghdr& msg, StatsReply& out) {
  auto payload = GenlPayload(msg, ETHTOOL_MSG_STATS_GET_REPLY);
  if (!payload) return payload.error();
  // ETHTOOL_A_STATS_GRP repeats (one per group): walked, not table-parsed.
  return nl::ForEachNested(
      *payload, [&](std::uint16_t type, AttrView grp) -> Status {
        if (type != ETHTOOL_A_STATS_GRP) return Status::Ok();
        nl::Attrs g(kStatsGrpPolicy);
        if (Status st = g.ParseNested(grp); !st.ok()) return st;
        auto id = g.U32(ETHTOOL_A_STATS_GRP_ID);
        if (!id) return Error{"ethtool: stats group without id", EBADMSG};
        return nl::ForEachNested(
            grp, [&](std::uint16_t t, AttrView nest) -> Status {
              // _HIST_RX / _HIST_TX repeat, one nest per bucket (rmon).
              if (t == ETHTOOL_A_STATS_GRP_HIST_RX ||
                  t == ETHTOOL_A_STATS_GRP_HIST_TX) {
                auto b = ParseHistBucket(*id, t == ETHTOOL_A_STATS_GRP_HIST_TX,
                                         nest);
                if (b) {
                  out.hist.push_back(*b);
                } else {
                  ++out.bad_buckets;
                }
                return Status::Ok();
              }
              if (t != ETHTOOL_A_STATS_GRP_STAT) return Status::Ok();
              // Each ETHTOOL_A_STATS_GRP_STAT nest holds one u64 whose
              // attribute number is the statistic's id.
              return nl::ForEachNested(
                  nest, [&](std::uint16_t sid, AttrView v) -> Status {
                    if (v.len != sizeof(std::uint64_t)) {
                      return Error{"ethtool: statistic is not a u64", EBADMSG};
                    }
                    StdStat s{*id, sid, 0};
                    std::memcpy(&s.value, v.data, sizeof(s.value));
                    out.stats.push_back(s);
                    return Status::Ok();
                  });
            });
      });
}

Result<std::vector<std::uint8_t>> ParseEepromReply(const nlmsghdr& msg) {
  auto payload = GenlPayload(msg, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY);
  if (!payload) return payload.error();
  nl::Attrs a(kEepromPolicy);
  if (Status st = a.Parse(payload->data, payload->len); !st.ok()) {
    return st.error();
  }
  auto data = a.Binary(ETHTOOL_A_MODULE_EEPROM_DATA);
  if (!data) return Error{"ethtool: EEPROM reply without data", EBADMSG};
  return std::vector<std::uint8_t>(data->data, data->data + data->len);
}

Result<EthtoolNetlink> EthtoolNetlink::Open(nl::NetlinkTransport& t) {
  std::optional<std::uint16_t> family;
  Status st = t.Exchange(GetFamilyRequest(ETHTOOL_GENL_NAME),
                         [&](const nlmsghdr& msg) -> Status {
                           auto id = ParseFamilyReply(msg);
                           if (!id) return id.error();
                           family = *id;
                           return Status::Ok();
                         });
  if (!st.ok()) return st.error();
  if (!family) return Error{"genetlink: no ethtool family", ENOENT};
  return EthtoolNetlink(t, *family);
}

Result<FecInfo> EthtoolNetlink::Fec(std::string_view netdev) {
  std::optional<FecInfo> info;
  Status st = transport_->Exchange(FecRequest(family_, netdev),
                                   [&](const nlmsghdr& msg) -> Status {
                                     auto r = ParseFecReply(msg);
                                     if (!r) return r.error();
                                     info = std::move(*r);
                                     return Status::Ok();
                                   });
  if (!st.ok()) return st.error();
  if (!info) return Error{"ethtool: no FEC reply", EBADMSG};
  return std::move(*info);
}

Result<StatsReply> EthtoolNetlink::Stats(std::string_view netdev) {
  StatsReply out;
  Status st = transport_->Exchange(
      StatsRequest(family_, netdev),
      [&](const nlmsghdr& msg) { return ParseStatsReply(msg, out); });
  if (!st.ok()) return st.error();
  return out;
}

Result<std::vector<std::uint8_t>> EthtoolNetlink::ReadEeprom(
    std::string_view netdev, const EepromWindow& w) {
  std::optional<std::vector<std::uint8_t>> data;
  Status st = transport_->Exchange(EepromRequest(family_, netdev, w),
                                   [&](const nlmsghdr& msg) -> Status {
                                     auto r = ParseEepromReply(msg);
                                     if (!r) return r.error();
                                     data = std::move(*r);
                                     return Status::Ok();
                                   });
  if (!st.ok()) return st.error();
  if (!data) return Error{"ethtool: no EEPROM reply", EBADMSG};
  return std::move(*data);
}

}  // namespace rnic::ethtool
