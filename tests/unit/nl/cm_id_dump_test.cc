// The rdma_cm ID dump (RES_CM_ID_GET): hand-built answers shaped as the
// kernel's fill_res_cm_id_entry() writes them, and the capture of a real
// one (tests/fixtures/netlink/rxe-cm-live) checked against what
// `rdma resource show cm_id` printed at the same moment.
#include "collectors/nl/cm_id_dump.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::Done;
using testing::ErrorMsg;
using testing::Join;
using testing::Msg;

// A struct __kernel_sockaddr_storage as the kernel copies it (128 bytes).
std::vector<std::uint8_t> V4(const char* ip, std::uint16_t port) {
  std::vector<std::uint8_t> ss(128, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  inet_pton(AF_INET, ip, &sin.sin_addr);
  std::memcpy(ss.data(), &sin, sizeof sin);
  return ss;
}
std::vector<std::uint8_t> V6(const char* ip, std::uint16_t port) {
  std::vector<std::uint8_t> ss(128, 0);
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  sin6.sin6_port = htons(port);
  inet_pton(AF_INET6, ip, &sin6.sin6_addr);
  std::memcpy(ss.data(), &sin6, sizeof sin6);
  return ss;
}

std::vector<CmIdEntry> Dump(ReplayTransport& t, std::uint32_t dev, Status* st) {
  std::vector<CmIdEntry> out;
  *st = DumpCmIds(t, dev, [&](const CmIdEntry& e) {
    out.push_back(e);
    out.back().owner.kern_name = {};  // valid during the call only
  });
  return out;
}

TEST(CmIdDumpTest, ReadsEveryFieldOfEachId) {
  Msg m(kCmdResCmIdGet);
  m.U32(kAttrDevIndex, 3).Str(kAttrDevName, "mlx5_0").Begin(kAttrResCmId);
  // A listener: no port, no QP, no destination.
  m.Begin(kAttrResCmIdEntry)
      .U32(kAttrResPs, kPsTcp)
      .U8(kAttrResState, kCmListen)
      .Raw(kAttrResSrcAddr, V4("0.0.0.0", 7174))
      .U32(kAttrResPid, 41)
      .End();
  // An established RC connection.
  m.Begin(kAttrResCmIdEntry)
      .U32(kAttrPortIndex, 1)
      .U32(kAttrResLqpn, 17)
      .U8(kAttrResType, 2)
      .U32(kAttrResPs, kPsTcp)
      .U8(kAttrResState, kCmConnect)
      .Raw(kAttrResSrcAddr, V4("10.0.3.2", 51234))
      .Raw(kAttrResDstAddr, V4("10.0.3.1", 7174))
      .U32(kAttrResPid, 42)
      .End();
  // A kernel consumer over IPv6, an IPv4-mapped peer.
  m.Begin(kAttrResCmIdEntry)
      .U32(kAttrPortIndex, 1)
      .U32(kAttrResPs, kPsTcp)
      .U8(kAttrResState, kCmConnect)
      .Raw(kAttrResSrcAddr, V6("fd00::2", 4420))
      .Raw(kAttrResDstAddr, V6("::ffff:10.0.4.9", 4420))
      .Str(kAttrResKernName, "nvme_rdma")
      .End();
  m.End();
  ReplayTransport t;
  t.Set("RES_CM_ID_GET_dump_dev3", Join({m.Bytes(), Done()}));
  Status st;
  const auto ids = Dump(t, 3, &st);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].dev_index, 3u);
  EXPECT_EQ(ids[0].state, kCmListen);
  EXPECT_EQ(ids[0].port, 0u);
  EXPECT_FALSE(ids[0].lqpn.has_value());
  EXPECT_FALSE(ids[0].dst.has_value());
  EXPECT_EQ(ids[0].src, (CmAddress{"0.0.0.0", 7174}));
  EXPECT_EQ(ids[1].port, 1u);
  EXPECT_EQ(ids[1].lqpn, 17u);
  EXPECT_EQ(ids[1].qp_type, 2);
  EXPECT_EQ(ids[1].ps, kPsTcp);
  EXPECT_EQ(ids[1].state, kCmConnect);
  EXPECT_EQ(ids[1].src, (CmAddress{"10.0.3.2", 51234}));
  EXPECT_EQ(ids[1].dst, (CmAddress{"10.0.3.1", 7174}));
  EXPECT_EQ(ids[1].owner.pid, 42u);
  EXPECT_EQ(ids[2].src, (CmAddress{"fd00::2", 4420}));
  EXPECT_EQ(ids[2].dst, (CmAddress{"10.0.4.9", 4420}));
  EXPECT_FALSE(ids[2].owner.pid.has_value());
  EXPECT_STREQ(CmStateName(kCmConnect), "CONNECT");
  EXPECT_EQ(CmStateName(200), nullptr);
}

TEST(CmIdDumpTest, MalformedEntriesAndAddressesAndKernelErrors) {
  // No state: malformed, as iproute2 refuses it.
  Msg m(kCmdResCmIdGet);
  m.U32(kAttrDevIndex, 1).Begin(kAttrResCmId);
  m.Begin(kAttrResCmIdEntry).U32(kAttrResPs, kPsTcp).End();
  m.End();
  ReplayTransport t;
  t.Set("RES_CM_ID_GET_dump_dev1", Join({m.Bytes(), Done()}));
  Status st;
  (void)Dump(t, 1, &st);
  EXPECT_FALSE(st.ok());
  // A kernel without the command, or without permission: the error.
  t.Set("RES_CM_ID_GET_dump_dev1", ErrorMsg(EOPNOTSUPP));
  (void)Dump(t, 1, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().errno_value, EOPNOTSUPP);
  // Addresses: short payloads and other families are no address.
  EXPECT_FALSE(ParseCmAddress({}).has_value());
  auto v4 = V4("10.1.2.3", 1);
  EXPECT_FALSE(ParseCmAddress(std::span(v4).first(7)).has_value());
  EXPECT_TRUE(ParseCmAddress(std::span(v4).first(8)).has_value());
  auto v6 = V6("fd00::1", 1);
  EXPECT_FALSE(ParseCmAddress(std::span(v6).first(23)).has_value());
  EXPECT_EQ(ParseCmAddress(v6)->ip, "fd00::1");
  std::vector<std::uint8_t> ib(128, 0);
  const std::uint16_t af_ib = 27;
  std::memcpy(ib.data(), &af_ib, sizeof af_ib);
  EXPECT_FALSE(ParseCmAddress(ib).has_value());
}

// The dump of rxe0 in the client VM of tests/vm/cases/fabric_live while an
// application (rnic_cm_holder) held two RC connections to the server and
// both exporters probed each other: every ID as `rdma resource show cm_id`
// printed it, field by field.
TEST(CmIdDumpTest, CaptureEqualsIproute2) {
  auto t = ReplayTransport::FromDirectory(testing::FixtureDir("rxe-cm-live"));
  ASSERT_TRUE(t.ok());
  Status st;
  const auto ids = Dump(*t, 0, &st);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  std::ifstream in(testing::FixtureDir("rxe-cm-live") + "/rdma-res-cm_id.txt");
  std::vector<std::map<std::string, std::string>> lines;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line);
    std::map<std::string, std::string> kv;
    for (std::string k, v; ss >> k >> v;) kv[k] = v;
    lines.push_back(std::move(kv));
  }
  ASSERT_EQ(ids.size(), lines.size());
  ASSERT_EQ(ids.size(), 5u);
  int connected = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& id = ids[i];
    const auto& w = lines[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(w.at("link"), "rxe0/" + std::to_string(id.port));
    EXPECT_EQ(w.at("state"), CmStateName(id.state));
    EXPECT_EQ(w.at("ps"), id.ps == kPsTcp ? "TCP" : "?");
    EXPECT_EQ(w.at("pid"), std::to_string(id.owner.pid.value_or(0)));
    ASSERT_TRUE(id.src && id.dst);
    EXPECT_EQ(w.at("src-addr"),
              id.src->ip + ":" + std::to_string(id.src->port));
    EXPECT_EQ(w.at("dst-addr"),
              id.dst->ip + ":" + std::to_string(id.dst->port));
    if (w.count("lqpn") > 0) {
      EXPECT_EQ(w.at("lqpn"), std::to_string(id.lqpn.value_or(0)));
      EXPECT_EQ(id.qp_type, 2);  // RC
    } else {
      EXPECT_FALSE(id.lqpn.has_value());
    }
    connected += id.state == kCmConnect;
  }
  // The exporter's listener, its outgoing probe, the probe its responder
  // accepted, and the application's two connections.
  EXPECT_EQ(connected, 4);
  // rxe1 (dummy0) had none: a dump without IDs.
  EXPECT_TRUE(Dump(*t, 1, &st).empty());
  EXPECT_TRUE(st.ok());
}

}  // namespace
}  // namespace rnic::nl
