#include "collectors/ethtool/ethtool_nl.h"

#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cstring>

#include "collectors/nl/attr_parser.h"
#include "collectors/nl/attr_writer.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/ethtool/ethtool_test_util.h"

namespace rnic::ethtool {
namespace {

using testing::kEthtoolFixtures;
constexpr char kNetdev[] = "enp129s0f0np0";

nl::ReplayTransport Replay() {
  auto r = nl::ReplayTransport::FromDirectory(kEthtoolFixtures + "/replay");
  EXPECT_TRUE(r.ok());
  r->SetMissingErrno(EOPNOTSUPP);
  return std::move(*r);
}

// The first message of a recorded reply, aligned for nlmsghdr.
std::vector<std::uint32_t> FirstMessage(const std::string& key) {
  const auto bytes = testing::ReadBytes(kEthtoolFixtures + "/replay/" + key);
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  std::vector<std::uint32_t> out((h.nlmsg_len + 3) / 4);
  std::memcpy(out.data(), bytes.data(), h.nlmsg_len);
  return out;
}
const nlmsghdr& Hdr(const std::vector<std::uint32_t>& m) {
  return *reinterpret_cast<const nlmsghdr*>(m.data());
}

TEST(EthtoolNl, ResolvesFamilyThenReadsFecTotalAndLanes) {
  auto t = Replay();
  auto c = EthtoolNetlink::Open(t);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->family(), 0x15);
  auto fec = c->Fec(kNetdev);
  ASSERT_TRUE(fec.ok()) << fec.error().message;
  EXPECT_EQ(fec->active, "rs");
  ASSERT_TRUE(fec->auto_mode.has_value());
  EXPECT_FALSE(*fec->auto_mode);
  EXPECT_EQ(fec->corrected,
            (std::vector<std::uint64_t>{2244, 1234, 1000, 10, 0}));
  EXPECT_EQ(fec->uncorrectable, (std::vector<std::uint64_t>{7, 5, 2, 0, 0}));
  EXPECT_TRUE(fec->corrected_bits.empty());
}

TEST(EthtoolNl, StandardStatsKeepKnownGroupsAndIds) {
  auto t = Replay();
  auto c = EthtoolNetlink::Open(t);
  ASSERT_TRUE(c.ok());
  auto stats = c->Stats(kNetdev);
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  ASSERT_EQ(stats->stats.size(), 9u);
  EXPECT_EQ(stats->stats[0].group, 0u);
  EXPECT_EQ(stats->stats[0].value, 3u);
  EXPECT_EQ(StdStatName(0, 0).metric, "symbol_error_during_carrier");
  EXPECT_EQ(StdStatName(1, 4).ieee, "FrameCheckSequenceErrors");
  EXPECT_TRUE(StdStatName(9, 0).metric.empty());
  EXPECT_TRUE(StdStatName(0, 1).metric.empty());
  EXPECT_EQ(GroupName(3), "rmon");
}

TEST(EthtoolNl, KernelRefusalComesBackAsErrno) {
  auto t = Replay();
  auto c = EthtoolNetlink::Open(t);
  ASSERT_TRUE(c.ok());
  auto fec = c->Fec("ens5f0v0");
  ASSERT_FALSE(fec.ok());
  EXPECT_EQ(fec.error().errno_value, EOPNOTSUPP);
  EXPECT_EQ(t.calls().at("ETHTOOL_FEC_GET_ens5f0v0"), 1);
}

TEST(EthtoolNl, NoEthtoolFamilyIsAnError) {
  nl::ReplayTransport t;
  t.SetMissingErrno(ENOENT);
  auto c = EthtoolNetlink::Open(t);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().errno_value, ENOENT);
}

TEST(EthtoolNl, FecRequestCarriesNameAndStatsFlag) {
  const nl::Request r = FecRequest(0x15, kNetdev);
  ASSERT_TRUE(r.msg_type.has_value());
  EXPECT_EQ(*r.msg_type, 0x15);
  ASSERT_EQ(r.header.size(), GENL_HDRLEN);
  EXPECT_EQ(r.header[0], ETHTOOL_MSG_FEC_GET);  // genlmsghdr.cmd
  EXPECT_EQ(r.cmd, ETHTOOL_MSG_FEC_GET);
  EXPECT_EQ(r.Key(), std::string("ETHTOOL_FEC_GET_") + kNetdev);
  // Walk the encoded header nest back with the attribute parser.
  std::optional<std::uint32_t> flags;
  std::string name;
  ASSERT_TRUE(nl::ForEachNested(
                  nl::AttrView{r.attrs.data(),
                               static_cast<std::uint16_t>(r.attrs.size())},
                  [&](std::uint16_t type, nl::AttrView nest) -> Status {
                    EXPECT_EQ(type, ETHTOOL_A_FEC_HEADER);
                    return nl::ForEachNested(
                        nest, [&](std::uint16_t t, nl::AttrView v) -> Status {
                          if (t == ETHTOOL_A_HEADER_DEV_NAME) {
                            name.assign(reinterpret_cast<const char*>(v.data));
                          } else if (t == ETHTOOL_A_HEADER_FLAGS) {
                            std::uint32_t f;
                            std::memcpy(&f, v.data, 4);
                            flags = f;
                          }
                          return Status::Ok();
                        });
                  })
                  .ok());
  EXPECT_EQ(name, kNetdev);
  ASSERT_TRUE(flags.has_value());
  EXPECT_TRUE(*flags & ETHTOOL_FLAG_STATS);
}

TEST(EthtoolNl, EepromRequestKeyNamesTheWindow) {
  const nl::Request r =
      EepromRequest(0x15, kNetdev, EepromWindow{0x11, 0, 128, 128});
  EXPECT_EQ(r.Key(), std::string("ETHTOOL_MODULE_EEPROM_GET_") + kNetdev +
                         "_p17_b0_o128");
}

// SFF-8472 diagnostics live at I2C address 0x51 (A2h): the request names
// it, and its replay key says so; the usual 0x50 keeps the old key.
TEST(EthtoolNl, EepromRequestCarriesTheI2cAddress) {
  auto address_of = [](const nl::Request& r) {
    std::optional<std::uint8_t> addr;
    EXPECT_TRUE(nl::ForEachNested(
                    nl::AttrView{r.attrs.data(),
                                 static_cast<std::uint16_t>(r.attrs.size())},
                    [&](std::uint16_t type, nl::AttrView v) -> Status {
                      if (type == ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS) {
                        addr = v.data[0];
                      }
                      return Status::Ok();
                    })
                    .ok());
    return addr;
  };
  const nl::Request a2 =
      EepromRequest(0x15, kNetdev, EepromWindow{0, 0, 0, 128, 0x51});
  EXPECT_EQ(address_of(a2), std::optional<std::uint8_t>(0x51));
  EXPECT_EQ(a2.Key(), std::string("ETHTOOL_MODULE_EEPROM_GET_") + kNetdev +
                          "_p0_b0_o0_a51");
  const nl::Request a0 =
      EepromRequest(0x15, kNetdev, EepromWindow{0, 0, 0, 128});
  EXPECT_EQ(address_of(a0), std::optional<std::uint8_t>(0x50));
  EXPECT_EQ(a0.Key(),
            std::string("ETHTOOL_MODULE_EEPROM_GET_") + kNetdev + "_p0_b0_o0");
}

TEST(EthtoolNl, ReadsEepromWindowsFromReplies) {
  auto t = Replay();
  auto c = EthtoolNetlink::Open(t);
  ASSERT_TRUE(c.ok());
  auto lower = c->ReadEeprom(kNetdev, EepromWindow{0, 0, 0, 128});
  ASSERT_TRUE(lower.ok()) << lower.error().message;
  ASSERT_EQ(lower->size(), 128u);
  EXPECT_EQ((*lower)[0], 0x11);  // QSFP28
}

TEST(EthtoolNl, MalformedRepliesAreErrors) {
  // A FEC statistic whose length is no multiple of 8.
  auto m = FirstMessage(std::string("ETHTOOL_FEC_GET_") + kNetdev + ".bin");
  auto* bytes = reinterpret_cast<std::uint8_t*>(m.data());
  const std::size_t len = Hdr(m).nlmsg_len;
  // Find the CORRECTED attribute (len 44, type 2) and shorten it by one.
  bool patched = false;
  for (std::size_t i = NLMSG_HDRLEN + GENL_HDRLEN; i + 4 <= len; i += 4) {
    std::uint16_t alen, type;
    std::memcpy(&alen, bytes + i, 2);
    std::memcpy(&type, bytes + i + 2, 2);
    if (alen == 44 && type == ETHTOOL_A_FEC_STAT_CORRECTED) {
      alen = 43;
      std::memcpy(bytes + i, &alen, 2);
      patched = true;
      break;
    }
  }
  ASSERT_TRUE(patched);
  auto fec = ParseFecReply(Hdr(m));
  ASSERT_FALSE(fec.ok());
  EXPECT_EQ(fec.error().errno_value, EBADMSG);

  // A reply of another command is not taken for a FEC reply.
  auto s = FirstMessage(std::string("ETHTOOL_STATS_GET_") + kNetdev + ".bin");
  EXPECT_FALSE(ParseFecReply(Hdr(s)).ok());
  StatsReply out;
  EXPECT_TRUE(ParseStatsReply(Hdr(s), out).ok());
  EXPECT_FALSE(ParseEepromReply(Hdr(s)).ok());

  // A header-only message.
  nlmsghdr shorty{NLMSG_HDRLEN, 0x15, 0, 0, 0};
  EXPECT_FALSE(ParseFecReply(shorty).ok());
  EXPECT_FALSE(ParseFamilyReply(shorty).ok());
}

}  // namespace
}  // namespace rnic::ethtool

namespace rnic::ethtool {
namespace {

// A FEC reply built the way net/ethtool/fec.c fills it, with the stats
// arrays given (each: total first, then lanes; empty: cnt 0).
std::vector<std::uint32_t> HandBuiltFec(
    std::optional<std::uint32_t> active,
    const std::vector<std::uint64_t>& corrected,
    const std::vector<std::uint64_t>& uncorrectable, bool with_stats) {
  nl::AttrWriter w;
  if (active) w.PutU32(ETHTOOL_A_FEC_ACTIVE, *active);
  if (with_stats) {
    const std::size_t nest = w.BeginNest(ETHTOOL_A_FEC_STATS);
    auto put = [&](std::uint16_t type, const std::vector<std::uint64_t>& v) {
      w.PutFlag(ETHTOOL_A_FEC_STAT_PAD);
      w.PutBinary(type,
                  std::span(reinterpret_cast<const std::uint8_t*>(v.data()),
                            v.size() * sizeof(std::uint64_t)));
    };
    put(ETHTOOL_A_FEC_STAT_CORRECTED, corrected);
    put(ETHTOOL_A_FEC_STAT_UNCORR, uncorrectable);
    w.EndNest(nest);
  }
  const auto& attrs = w.bytes();
  const std::size_t len = NLMSG_HDRLEN + GENL_HDRLEN + attrs.size();
  std::vector<std::uint32_t> buf((len + 3) / 4);
  nlmsghdr h{static_cast<std::uint32_t>(len), 0x15, 0, 0, 0};
  genlmsghdr g{ETHTOOL_MSG_FEC_GET_REPLY, 1, 0};
  auto* p = reinterpret_cast<std::uint8_t*>(buf.data());
  std::memcpy(p, &h, sizeof(h));
  std::memcpy(p + NLMSG_HDRLEN, &g, sizeof(g));
  std::memcpy(p + NLMSG_HDRLEN + GENL_HDRLEN, attrs.data(), attrs.size());
  return buf;
}

TEST(EthtoolNlHandBuilt, TotalsOnlyAsDriversWithoutLaneCounters) {
  // ice/bnxt style: totals, no lanes; BaseR mode.
  auto m = HandBuiltFec(ETHTOOL_LINK_MODE_FEC_BASER_BIT, {42}, {1}, true);
  auto fec = ParseFecReply(Hdr(m));
  ASSERT_TRUE(fec.ok()) << fec.error().message;
  EXPECT_EQ(fec->active, "baser");
  EXPECT_EQ(fec->corrected, std::vector<std::uint64_t>{42});
  EXPECT_EQ(fec->uncorrectable, std::vector<std::uint64_t>{1});
}

TEST(EthtoolNlHandBuilt, NoCountersAndNoActiveMode) {
  // Stats nest with cnt 0 arrays (the driver counts nothing), no ACTIVE.
  auto m = HandBuiltFec(std::nullopt, {}, {}, true);
  auto fec = ParseFecReply(Hdr(m));
  ASSERT_TRUE(fec.ok()) << fec.error().message;
  EXPECT_EQ(fec->active, "");
  EXPECT_TRUE(fec->corrected.empty());
  EXPECT_TRUE(fec->uncorrectable.empty());
  // No stats nest at all (a driver without get_fec_stats).
  auto bare = HandBuiltFec(ETHTOOL_LINK_MODE_FEC_LLRS_BIT, {}, {}, false);
  auto f2 = ParseFecReply(Hdr(bare));
  ASSERT_TRUE(f2.ok());
  EXPECT_EQ(f2->active, "llrs");
  EXPECT_TRUE(f2->corrected.empty());
  // A link mode bit this exporter does not name.
  auto odd = HandBuiltFec(99, {}, {}, false);
  EXPECT_EQ(ParseFecReply(Hdr(odd))->active, "linkmode99");
}

}  // namespace
}  // namespace rnic::ethtool
