#include "collectors/ethtool/ethtool_nl.h"

#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cstring>

#include "collectors/netlink/attr_parser.h"
#include "collectors/netlink/replay_transport.h"
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
  ASSERT_EQ(stats->size(), 9u);
  EXPECT_EQ((*stats)[0].group, 0u);
  EXPECT_EQ((*stats)[0].value, 3u);
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
  std::vector<StdStat> out;
  EXPECT_TRUE(ParseStatsReply(Hdr(s), out).ok());
  EXPECT_FALSE(ParseEepromReply(Hdr(s)).ok());

  // A header-only message.
  nlmsghdr shorty{NLMSG_HDRLEN, 0x15, 0, 0, 0};
  EXPECT_FALSE(ParseFecReply(shorty).ok());
  EXPECT_FALSE(ParseFamilyReply(shorty).ok());
}

}  // namespace
}  // namespace rnic::ethtool
