#include "collectors/nl/dcb_source.h"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <climits>

#include "collectors/nl/replay_transport.h"
#include "tests/unit/roce/test_netns.h"

namespace rnic {
namespace {

// Builds an RTM_GETDCB / DCB_CMD_IEEE_GET reply the way dcbnl_ieee_fill()
// lays it out, with libnl.
struct Reply {
  Reply() {
    msg = nlmsg_alloc_simple(RTM_GETDCB, 0);
    dcbmsg d{};
    d.dcb_family = AF_UNSPEC;
    d.cmd = DCB_CMD_IEEE_GET;
    nlmsg_append(msg, &d, sizeof(d), NLMSG_ALIGNTO);
    nla_put_string(msg, DCB_ATTR_IFNAME, "enp1s0f0np0");
  }
  ~Reply() { nlmsg_free(msg); }
  nl_msg* msg;
};

TEST(DcbReplyTest, ParsesPfcWillingAndDscpApps) {
  Reply r;
  nlattr* ieee = nla_nest_start(r.msg, DCB_ATTR_IEEE);
  ieee_ets ets{};
  ets.willing = 1;
  nla_put(r.msg, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
  ieee_pfc pfc{};
  pfc.pfc_cap = 8;
  pfc.pfc_en = 0x28;  // priorities 3 and 5
  pfc.requests[3] = 99;
  nla_put(r.msg, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
  nlattr* apps = nla_nest_start(r.msg, DCB_ATTR_IEEE_APP_TABLE);
  for (int dscp : {26, 46, 48}) {
    dcb_app a{IEEE_8021QAZ_APP_SEL_DSCP, 3, static_cast<__u16>(dscp)};
    nla_put(r.msg, DCB_ATTR_IEEE_APP, sizeof(a), &a);
  }
  dcb_app roce{IEEE_8021QAZ_APP_SEL_DGRAM, 3, 4791};
  nla_put(r.msg, DCB_ATTR_IEEE_APP, sizeof(roce), &roce);
  nla_nest_end(r.msg, apps);
  nla_nest_end(r.msg, ieee);
  nla_put_u8(r.msg, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);

  nlmsghdr* h = nlmsg_hdr(r.msg);
  auto info = ParseDcbIeeeReply(h, h->nlmsg_len);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->pfc_enabled, 0x28);
  EXPECT_EQ(info->pfc_capable, 8);
  EXPECT_EQ(info->willing, true);
  EXPECT_EQ(info->app_dscp_entries, 3);
  EXPECT_EQ(info->dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
}

TEST(DcbReplyTest, MissingPartsStayUnknown) {
  Reply r;  // a driver with ieee ops for nothing we read
  nlattr* ieee = nla_nest_start(r.msg, DCB_ATTR_IEEE);
  nla_nest_end(r.msg, ieee);
  nlmsghdr* h = nlmsg_hdr(r.msg);
  auto info = ParseDcbIeeeReply(h, h->nlmsg_len);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->pfc_enabled);
  EXPECT_FALSE(info->willing);
  EXPECT_FALSE(info->app_dscp_entries);
}

TEST(DcbReplyTest, NetlinkErrorCarriesErrno) {
  nl_msg* m = nlmsg_alloc_simple(NLMSG_ERROR, 0);
  nlmsgerr e{};
  e.error = -EOPNOTSUPP;
  nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO);
  nlmsghdr* h = nlmsg_hdr(m);
  auto info = ParseDcbIeeeReply(h, h->nlmsg_len);
  nlmsg_free(m);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().errno_value, EOPNOTSUPP);
  EXPECT_FALSE(ParseDcbIeeeReply("\x01\x02", 2).ok());
}

// Found by tests/fuzz/fuzz_dcb: negating INT_MIN overflowed. A code that
// is no -errno is a malformed answer, not an errno.
TEST(DcbReplyTest, ErrorCodeOutsideErrnoRangeIsMalformed) {
  for (int bad : {INT_MIN, -4096, 1}) {
    nl_msg* m = nlmsg_alloc_simple(NLMSG_ERROR, 0);
    nlmsgerr e{};
    e.error = bad;
    nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO);
    nlmsghdr* h = nlmsg_hdr(m);
    auto info = ParseDcbIeeeReply(h, h->nlmsg_len);
    nlmsg_free(m);
    ASSERT_FALSE(info.ok()) << bad;
    EXPECT_EQ(info.error().errno_value, 0) << bad;
    EXPECT_NE(info.error().message.find("malformed"), std::string::npos);
  }
}

// The rtnetlink source on the shared netlink transport: a recorded reply
// (dcbnl's answer, then the ack our NLM_F_ACK asks for) and a refusal.
TEST(DcbTransportTest, QueriesThroughTheNetlinkTransport) {
  Reply r;
  nlattr* ieee = nla_nest_start(r.msg, DCB_ATTR_IEEE);
  ieee_pfc pfc{};
  pfc.pfc_en = 0x08;
  nla_put(r.msg, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
  nla_nest_end(r.msg, ieee);
  const nlmsghdr* h = nlmsg_hdr(r.msg);
  std::vector<std::uint8_t> bytes(
      reinterpret_cast<const std::uint8_t*>(h),
      reinterpret_cast<const std::uint8_t*>(h) + NLMSG_ALIGN(h->nlmsg_len));
  nlmsghdr ack{NLMSG_LENGTH(sizeof(nlmsgerr)), NLMSG_ERROR, 0, 0, 0};
  nlmsgerr ok{};
  const auto* a = reinterpret_cast<const std::uint8_t*>(&ack);
  bytes.insert(bytes.end(), a, a + sizeof(ack));
  const auto* o = reinterpret_cast<const std::uint8_t*>(&ok);
  bytes.insert(bytes.end(), o, o + sizeof(ok));
  auto replay = std::make_unique<nl::ReplayTransport>();
  replay->Set("DCB_IEEE_GET_enp1s0f0np0", bytes);
  replay->SetMissingErrno(EOPNOTSUPP);
  nl::ReplayTransport* calls = replay.get();
  auto src = MakeRtnetlinkDcbSource(std::move(replay));
  auto info = src->Query("enp1s0f0np0");
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->pfc_enabled, 0x08);
  auto none = src->Query("eth0");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().errno_value, EOPNOTSUPP);
  EXPECT_EQ(calls->calls().at("DCB_IEEE_GET_eth0"), 1);
}

TEST(DcbFixtureTest, ReadsFactsAndMissingIsEopnotsupp) {
  auto src = MakeFixtureDcbSource(RNIC_FIXTURES_DIR "/roce/dcb");
  auto info = src->Query("enp129s0f0np0");
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->pfc_enabled, 0x08);
  EXPECT_EQ(info->willing, false);
  EXPECT_EQ(info->app_dscp_entries, 64);
  auto none = src->Query("eth0");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().errno_value, EOPNOTSUPP);
}

// The real kernel: veth and lo have no dcbnl ops, an unknown name is ENODEV.
TEST(RealDcbTest, VethAndLoopbackAnswerEopnotsupp) {
  rnic::testing::TestNetns ns;
  if (!ns.ok()) GTEST_SKIP() << "cannot create a network namespace";
  ASSERT_EQ(ns.Ip("link add va type veth peer name vb"), 0);
  ASSERT_TRUE(ns.Enter());
  auto src = MakeRtnetlinkDcbSource();
  for (const char* nd : {"va", "lo"}) {
    auto r = src->Query(nd);
    ASSERT_FALSE(r.ok()) << nd;
    EXPECT_EQ(r.error().errno_value, EOPNOTSUPP) << r.error().ToString();
  }
  auto r = src->Query("nosuchdev0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errno_value, ENODEV) << r.error().ToString();
  // The socket stays usable after errors.
  r = src->Query("va");
  EXPECT_EQ(r.error().errno_value, EOPNOTSUPP);
  ns.Leave();
}

}  // namespace
}  // namespace rnic
