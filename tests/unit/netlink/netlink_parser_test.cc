// Framing and attribute parsing: unknown attributes are skipped, anything
// truncated or malformed is an error and never a crash.
#include <gtest/gtest.h>
#include <rdma/rdma_netlink.h>  // Debian's 6.1 uapi, to check our numbers

#include <climits>
#include <cstring>
#include <random>

#include "collectors/nl/attr_parser.h"
#include "collectors/nl/rdma_source.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::Done;
using testing::ErrorMsg;
using testing::Join;
using testing::Msg;

// Our hand-written numbers must match the kernel's header where it has them.
static_assert(int{kCmdStatGetStatus} == int{RDMA_NLDEV_CMD_STAT_GET_STATUS});
static_assert(int{kCmdResCtxGet} == int{RDMA_NLDEV_CMD_RES_CTX_GET});
static_assert(int{kAttrNdevName} == int{RDMA_NLDEV_ATTR_NDEV_NAME});
static_assert(int{kAttrResCtxn} == int{RDMA_NLDEV_ATTR_RES_CTXN});
static_assert(int{kAttrStatHwcounterEntryValue} ==
              int{RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE});
static_assert(int{kAttrResCtxEntry} == int{RDMA_NLDEV_ATTR_RES_CTX_ENTRY});
static_assert(int{kAttrStatHwcounterDynamic} ==
              int{RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC});
static_assert(MsgType(kCmdGet) ==
              RDMA_NL_GET_TYPE(int{RDMA_NL_NLDEV}, int{RDMA_NLDEV_CMD_GET}));

TEST(NetlinkRequestKey, NamesCommandAndAttributes) {
  Request r{
      kCmdStatGet,
      true,
      {{kAttrDevIndex, 3}, {kAttrPortIndex, 2}, {kAttrStatRes, kAttrResQp}}};
  EXPECT_EQ(r.Key(), "STAT_GET_dump_dev3_port2_res19");
  EXPECT_EQ((Request{kCmdGet, false, {{kAttrDevIndex, 0}}}.Key()), "GET_dev0");
}

TEST(NetlinkAttrs, UnknownAttributesAreIgnored) {
  Msg m(kCmdGet);
  m.U32(kAttrDevIndex, 7)
      .Str(kAttrDevName, "mlx5_0")
      .U64(250, 99)  // far beyond anything we know
      .U32(kAttrKnownEnd, 1)
      .Begin(300)
      .U32(1, 5)
      .End()
      .U8(kAttrDevNodeType, 1);
  auto bytes = m.Bytes();
  Attrs a;
  ASSERT_TRUE(
      a.ParseMessage(*reinterpret_cast<const nlmsghdr*>(bytes.data())).ok());
  EXPECT_EQ(a.U32(kAttrDevIndex), 7u);
  EXPECT_EQ(a.Str(kAttrDevName), "mlx5_0");
  EXPECT_EQ(a.U8(kAttrDevNodeType), 1);
  EXPECT_FALSE(a.Has(kAttrPortIndex));
}

// One Attrs parses message after message (a dump's entries): what an
// earlier parse set is gone in the next, and a fresh one has nothing, also
// after its parse counter wraps.
TEST(NetlinkAttrs, EachParseForgetsTheLast) {
  Attrs a;
  EXPECT_FALSE(a.Has(kAttrDevIndex));
  EXPECT_FALSE(a.U32(kAttrDevIndex));
  Msg with(kCmdGet);
  with.U32(kAttrDevIndex, 7).Str(kAttrDevName, "rxe0");
  Msg without(kCmdGet);
  without.Str(kAttrDevName, "rxe1");
  const auto b1 = with.Bytes();
  const auto b2 = without.Bytes();
  const auto& m1 = *reinterpret_cast<const nlmsghdr*>(b1.data());
  const auto& m2 = *reinterpret_cast<const nlmsghdr*>(b2.data());
  for (int i = 0; i < 70000; ++i) {  // past 65535 parses: the counter wraps
    ASSERT_TRUE(a.ParseMessage(m1).ok());
    ASSERT_EQ(a.U32(kAttrDevIndex), 7u) << i;
    ASSERT_TRUE(a.ParseMessage(m2).ok());
    ASSERT_FALSE(a.Has(kAttrDevIndex)) << i;
    ASSERT_EQ(a.Str(kAttrDevName), "rxe1");
  }
}

TEST(NetlinkAttrs, WrongPayloadSizeIsAnError) {
  Msg m(kCmdGet);
  m.U8(kAttrDevIndex, 1);  // u32 expected
  auto bytes = m.Bytes();
  Attrs a;
  Status st = a.ParseMessage(*reinterpret_cast<const nlmsghdr*>(bytes.data()));
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.error().errno_value, EBADMSG);
}

TEST(NetlinkAttrs, StringWithoutNulIsAnError) {
  Msg m(kCmdGet);
  m.Raw(kAttrDevName, {'a', 'b', 'c', 'd'});
  auto bytes = m.Bytes();
  Attrs a;
  EXPECT_FALSE(
      a.ParseMessage(*reinterpret_cast<const nlmsghdr*>(bytes.data())).ok());
}

TEST(NetlinkAttrs, AttributeLongerThanMessageIsAnError) {
  Msg m(kCmdGet);
  m.U32(kAttrDevIndex, 1).Str(kAttrDevName, "rxe0");
  auto bytes = m.Bytes();
  // Claim the last attribute is longer than what is left.
  auto* hdr = reinterpret_cast<nlmsghdr*>(bytes.data());
  auto* last = reinterpret_cast<nlattr*>(bytes.data() + NLMSG_HDRLEN + 8);
  last->nla_len = 200;
  Attrs a;
  EXPECT_FALSE(a.ParseMessage(*hdr).ok());
}

TEST(NetlinkWalk, KernelErrorCarriesErrno) {
  ReplayTransport t;
  t.Set("GET_dump", ErrorMsg(EOPNOTSUPP));
  RdmaNetlinkSource src(t);
  auto devs = src.Devices();
  ASSERT_FALSE(devs.ok());
  EXPECT_EQ(devs.error().errno_value, EOPNOTSUPP);
}

// Found by tests/fuzz/fuzz_netlink: -INT_MIN overflowed. Codes that are no
// -errno are malformed answers.
TEST(NetlinkWalk, ErrorCodeOutsideErrnoRangeIsMalformed) {
  for (int bad : {INT_MIN, -4096, 1}) {
    ReplayTransport t;
    auto bytes = ErrorMsg(0);
    nlmsgerr e{};
    e.error = bad;
    std::memcpy(bytes.data() + NLMSG_HDRLEN, &e, sizeof(e));
    t.Set("GET_dump", bytes);
    auto devs = RdmaNetlinkSource(t).Devices();
    ASSERT_FALSE(devs.ok()) << bad;
    EXPECT_EQ(devs.error().errno_value, EBADMSG) << bad;
  }
}

TEST(NetlinkWalk, AnswerWithoutEndIsAnError) {
  Msg m(kCmdGet);
  m.U32(kAttrDevIndex, 0).Str(kAttrDevName, "rxe0");
  ReplayTransport t;
  t.Set("GET_dump", m.Bytes());  // no NLMSG_DONE
  EXPECT_FALSE(RdmaNetlinkSource(t).Devices().ok());
}

// A single-reply doit ends at its one message; a dump's messages go on to
// DONE. Whatever follows the end is not looked at.
TEST(NetlinkWalk, SingleReplyEndsAtItsFirstMessage) {
  Msg a(kCmdGet);
  a.U32(kAttrDevIndex, 0).Str(kAttrDevName, "rxe0");
  Msg b(kCmdGet);
  b.U32(kAttrDevIndex, 1).Str(kAttrDevName, "rxe1");
  const auto bytes = Join({a.Bytes(), b.Bytes()});
  for (AnswerEnd end : {AnswerEnd::kFirstMessage, AnswerEnd::kDoneOrAck}) {
    int seen = 0;
    bool finished = false;
    ASSERT_TRUE(WalkMessages(
                    bytes, 0,
                    [&](const nlmsghdr&) {
                      ++seen;
                      return Status::Ok();
                    },
                    &finished, end)
                    .ok());
    const bool single = end == AnswerEnd::kFirstMessage;
    EXPECT_EQ(seen, single ? 1 : 2);
    EXPECT_EQ(finished, single);  // a dump without DONE is not finished
  }
}

TEST(NetlinkWalk, TruncatedAnswersAreErrorsAtEveryCut) {
  Msg m(kCmdStatGet, 0);
  m.U32(kAttrDevIndex, 0).Str(kAttrDevName, "rxe0").U32(kAttrPortIndex, 1);
  m.Begin(kAttrStatHwcounters)
      .Counter("sent_pkts", 10)
      .Counter("rcvd_pkts", 11)
      .End();
  // STAT_GET is a single-reply doit (no ack asked): its one message is the
  // whole answer.
  const auto full = m.Bytes();
  {
    ReplayTransport t;
    t.Set("STAT_GET_dev0_port1", full);
    auto ok = RdmaNetlinkSource(t).PortStats(0, 1);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->counters.size(), 2u);
  }
  // Every shorter prefix must be rejected (never crash, never half a result).
  for (std::size_t cut = 1; cut < full.size(); ++cut) {
    ReplayTransport t;
    t.Set("STAT_GET_dev0_port1",
          std::vector<std::uint8_t>(full.begin(), full.begin() + cut));
    auto r = RdmaNetlinkSource(t).PortStats(0, 1);
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
}

TEST(NetlinkWalk, RandomGarbageNeverCrashes) {
  std::mt19937 rng(1234);  // fixed seed: reproducible
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint8_t> junk(4 + rng() % 300);
    for (auto& b : junk) b = static_cast<std::uint8_t>(byte(rng));
    if (round % 2 == 0 && junk.size() >= sizeof(nlmsghdr)) {
      // Plausible header so the walk reaches the attribute parser.
      nlmsghdr h{};
      h.nlmsg_len = static_cast<std::uint32_t>(junk.size());
      h.nlmsg_type = MsgType(kCmdResQpGet);
      h.nlmsg_flags = NLM_F_MULTI;
      std::memcpy(junk.data(), &h, sizeof(h));
    }
    ReplayTransport t;
    t.Set("RES_QP_GET_dump_dev0", junk);
    RdmaNetlinkSource src(t);
    std::size_t seen = 0;
    (void)src.DumpResources(ResKind::kQp, 0, [&](const ResEntry&) { ++seen; });
  }
  SUCCEED();
}

}  // namespace
}  // namespace rnic::nl
