// The probe's counter binding on the project's RDMA netlink stack: STAT_SET
// (manual mode) and STAT_GET of one counter id go through ReplayTransport,
// answered by messages laid out as the kernel's nldev code builds them
// (nldev_stat_set_doit, res_get_common_doit + fill_res_counter_entry). rxe
// cannot allocate per-QP counters, so no capture of a real success exists;
// its ENOMEM refusal is checked in the VM (probe_resources).
#include "collectors/probe/qp_counter.h"

#include <gtest/gtest.h>

#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::probe {
namespace {

using nl::testing::Done;
using nl::testing::ErrorMsg;
using nl::testing::Join;
using nl::testing::Msg;

// The answer to STAT_SET: device handle, port, the counter id and the QP.
std::vector<std::uint8_t> SetAnswer(std::uint32_t counter_id,
                                    std::uint32_t qpn) {
  Msg m(nl::kCmdStatSet, 0);
  m.U32(nl::kAttrDevIndex, 2)
      .Str(nl::kAttrDevName, "mlx5_0")
      .U32(nl::kAttrPortIndex, 1)
      .U32(nl::kAttrStatCounterId, counter_id)
      .U32(nl::kAttrResLqpn, qpn);
  return Join({m.Bytes(), ErrorMsg(0)});
}

// The answer to STAT_GET of counter `id`: one counter entry at top level.
std::vector<std::uint8_t> GetAnswer(std::uint32_t id, std::uint64_t writes,
                                    std::uint64_t timeouts) {
  Msg m(nl::kCmdStatGet, 0);
  m.U32(nl::kAttrDevIndex, 2)
      .Str(nl::kAttrDevName, "mlx5_0")
      .U32(nl::kAttrPortIndex, 1)
      .U32(nl::kAttrStatCounterId, id)
      .U8(nl::kAttrResType, 2)  // RC
      .U32(nl::kAttrResPid, 4242)
      .U32(nl::kAttrStatMode, nl::kCounterModeManual)
      .Begin(nl::kAttrResQp)
      .Begin(nl::kAttrResQpEntry)
      .U32(nl::kAttrResLqpn, 17)
      .End()
      .Begin(nl::kAttrResQpEntry)
      .U32(nl::kAttrResLqpn, 18)
      .End()
      .End()
      .Begin(nl::kAttrStatHwcounters)
      .Counter("rx_write_requests", writes)
      .Counter("local_ack_timeout_err", timeouts)
      .End();
  return Join({m.Bytes(), ErrorMsg(0)});
}

constexpr char kBindNew[] = "STAT_SET_dev2_port1_res19_mode2_qpn17";
constexpr char kBindTo[] = "STAT_SET_dev2_port1_res19_mode2_qpn18_counter7";
constexpr char kRead[] = "STAT_GET_dev2_port1_res19_counter7";

TEST(QpCounterTest, BindsBothQpsToOneNewCounter) {
  nl::ReplayTransport t;
  t.Set(kBindNew, SetAnswer(7, 17));
  t.Set(kBindTo, SetAnswer(7, 18));
  nl::RdmaNetlinkSource src(t);
  auto id = BindProbeQps(src, 2, 1, 17, 18);
  ASSERT_TRUE(id.ok()) << id.error().ToString();
  EXPECT_EQ(*id, 7u);
  // The second QP went to the counter the first bind allocated.
  EXPECT_EQ(t.calls().at(kBindNew), 1);
  EXPECT_EQ(t.calls().at(kBindTo), 1);
}

TEST(QpCounterTest, ReadsTheCounterValues) {
  nl::ReplayTransport t;
  t.Set(kRead, GetAnswer(7, 12, 3));
  nl::RdmaNetlinkSource src(t);
  auto v = ReadQpCounter(src, 2, 1, 7);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ(v->at("rx_write_requests"), 12u);
  EXPECT_EQ(v->at("local_ack_timeout_err"), 3u);
}

TEST(QpCounterTest, ReadsTheCounterFromAStatCounterTable) {
  Msg m(nl::kCmdStatGet, 0);
  m.U32(nl::kAttrDevIndex, 2)
      .U32(nl::kAttrPortIndex, 1)
      .Begin(nl::kAttrStatCounter)
      .Begin(nl::kAttrStatCounterEntry)
      .U32(nl::kAttrStatCounterId, 6)
      .Begin(nl::kAttrStatHwcounters)
      .Counter("rx_write_requests", 99)
      .End()
      .End()
      .Begin(nl::kAttrStatCounterEntry)
      .U32(nl::kAttrStatCounterId, 7)
      .Begin(nl::kAttrStatHwcounters)
      .Counter("rx_write_requests", 5)
      .End()
      .End()
      .End();
  nl::ReplayTransport t;
  t.Set(kRead, Join({m.Bytes(), ErrorMsg(0)}));
  nl::RdmaNetlinkSource src(t);
  auto v = ReadQpCounter(src, 2, 1, 7);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  EXPECT_EQ(v->at("rx_write_requests"), 5u);  // counter 7's, not 6's
}

TEST(QpCounterTest, RxeRefusalKeepsItsErrno) {
  nl::ReplayTransport t;
  t.Set(kBindNew, ErrorMsg(ENOMEM));  // rxe: no per-QP counters
  nl::RdmaNetlinkSource src(t);
  auto id = BindProbeQps(src, 2, 1, 17, 18);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().errno_value, ENOMEM);
  EXPECT_EQ(t.calls().count(kBindTo), 0u);  // no second bind attempted
}

TEST(QpCounterTest, SecondBindFailureIsReported) {
  nl::ReplayTransport t;
  t.Set(kBindNew, SetAnswer(7, 17));
  t.Set(kBindTo, ErrorMsg(EPERM));
  nl::RdmaNetlinkSource src(t);
  auto id = BindProbeQps(src, 2, 1, 17, 18);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().errno_value, EPERM);
}

TEST(QpCounterTest, AnswersWithoutWhatWasAskedAreMalformed) {
  Msg set(nl::kCmdStatSet, 0);
  set.U32(nl::kAttrDevIndex, 2).U32(nl::kAttrPortIndex, 1);
  Msg get(nl::kCmdStatGet, 0);
  get.U32(nl::kAttrDevIndex, 2).U32(nl::kAttrStatCounterId, 7);
  nl::ReplayTransport t;
  t.Set(kBindNew, Join({set.Bytes(), ErrorMsg(0)}));
  t.Set(kRead, Join({get.Bytes(), ErrorMsg(0)}));
  nl::RdmaNetlinkSource src(t);
  auto id = BindProbeQps(src, 2, 1, 17, 18);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().errno_value, EBADMSG);
  auto v = ReadQpCounter(src, 2, 1, 7);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().errno_value, EBADMSG);
}

TEST(QpCounterTest, TruncatedCounterEntryIsAnErrorNotACrash) {
  std::vector<std::uint8_t> bytes = GetAnswer(7, 12, 3);
  // Cut the message inside its hw counter table; fix up nlmsg_len so only
  // the attribute framing is wrong.
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  const std::uint32_t cut = h.nlmsg_len - 6;
  h.nlmsg_len = cut;
  std::memcpy(bytes.data(), &h, sizeof(h));
  std::vector<std::uint8_t> msg(bytes.begin(),
                                bytes.begin() + NLMSG_ALIGN(cut));
  nl::ReplayTransport t;
  t.Set(kRead, Join({msg, Done()}));
  nl::RdmaNetlinkSource src(t);
  auto v = ReadQpCounter(src, 2, 1, 7);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().errno_value, EBADMSG);
}

TEST(MonotonicCountersTest, FoldsOldCounterIntoBaseOnRebind) {
  MonotonicCounters c;
  c.Update({{"retrans", 5}});
  c.Update({{"retrans", 8}});
  c.Rebound();  // QPs moved to a new counter that starts at 0
  c.Update({{"retrans", 1}});
  EXPECT_EQ(c.Values().at("retrans"), 9u);
  c.Update({{"retrans", 0}});  // reset under us without a rebind
  c.Update({{"retrans", 2}});
  EXPECT_EQ(c.Values().at("retrans"), 11u);
}

}  // namespace
}  // namespace rnic::probe
