// Live peers: which of this host's rdma_cm connections name a peer (the
// probe's own, loopback and this host's addresses left out), how they map
// onto the peer set, their ranking and bound, and how they merge into a
// period's schedule.
#include "collectors/fabric/live_peers.h"

#include <gtest/gtest.h>

#include <fstream>

#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::fabric {
namespace {

LiveConnection Conn(const std::string& remote, int remote_port,
                    std::int64_t pid, int local_port = 40000) {
  return {"10.0.3.2", local_port, remote, remote_port, pid};
}

std::vector<std::string> Hosts(const LiveSelection& s) {
  std::vector<std::string> out;
  for (const auto& p : s.peers) out.push_back(p.host);
  return out;
}

TEST(LivePeersTest, OwnProbeConnectionsLoopbackAndOwnAddressesAreLeftOut) {
  LiveExclusions ex;
  ex.own_pids = {100, 101};
  ex.fabric_port = 18530;
  ex.own_ips = {"10.0.3.2", "10.0.4.2"};
  const std::vector<LiveConnection> conns = {
      Conn("10.0.3.1", 7174, 200),          // an application: kept
      Conn("10.0.3.5", 18530, 100),         // this exporter's probe
      Conn("10.0.3.6", 40001, 101, 18530),  // a probe its responder accepted
      Conn("10.0.3.4", 7174, 101),          // this exporter's threads, any port
      Conn("10.0.3.7", 18530, 300),  // another exporter's probe on this host
      Conn("10.0.3.8", 40002, 300, 18530),  // ... and its responder's
      Conn("127.0.0.1", 7174, 200),         // loopback
      Conn("::1", 7174, 200),
      Conn("10.0.4.2", 7174, 200),  // between this host's own devices
      Conn("0.0.0.0", 7174, 200),   // unspecified
      Conn("fe80::1", 7174, 200),   // link-local: needs a scope
      Conn("fd00::9", 4420, -1),    // a kernel consumer (NVMe-oF): kept
  };
  const auto s = SelectLivePeers(conns, ex, {}, 8);
  EXPECT_EQ(Hosts(s), (std::vector<std::string>{"10.0.3.1", "fd00::9"}));
  EXPECT_EQ(s.found, 2u);
  EXPECT_FALSE(s.peers[0].in_peer_set);
}

TEST(LivePeersTest, AddressesMapToTheirPeerRankedByConnectionsAndBounded) {
  LiveExclusions ex;
  // node-b announced two rails; node-c is named by its address.
  const std::map<std::string, std::string> known = {{"node-b", "node-b"},
                                                    {"10.0.3.1", "node-b"},
                                                    {"10.0.4.1", "node-b"},
                                                    {"10.0.3.3", "10.0.3.3"}};
  std::vector<LiveConnection> conns = {
      Conn("10.0.3.1", 7174, 2), Conn("10.0.4.1", 7174, 2),  // node-b: 2
      Conn("10.0.3.3", 7174, 2),                             // peer 10.0.3.3
      Conn("10.0.3.9", 7174, 2), Conn("10.0.3.9", 7175, 2),
      Conn("10.0.3.9", 7176, 2),  // not in the peer set: 3
      Conn("10.0.3.8", 7174, 2),  // 1, after 10.0.3.3 by name
  };
  auto s = SelectLivePeers(conns, ex, known, 8);
  ASSERT_EQ(Hosts(s), (std::vector<std::string>{"10.0.3.9", "node-b",
                                                "10.0.3.3", "10.0.3.8"}));
  EXPECT_EQ(s.peers[0].connections, 3);
  EXPECT_FALSE(s.peers[0].in_peer_set);
  EXPECT_EQ(s.peers[1].connections, 2);
  EXPECT_TRUE(s.peers[1].in_peer_set);
  EXPECT_TRUE(s.peers[2].in_peer_set);
  // The bound keeps the most connected; found counts every host.
  s = SelectLivePeers(conns, ex, known, 2);
  EXPECT_EQ(Hosts(s), (std::vector<std::string>{"10.0.3.9", "node-b"}));
  EXPECT_EQ(s.found, 4u);
}

TEST(LivePeersTest, FullMeshAddsLivePeersFirstWithinMaxPeers) {
  const std::set<std::string> targets = {"a", "b", "c"};
  // "b" is probed already: it moves first; "x", "y" are new.
  auto m = MergeLivePeers(std::vector<std::string>{"x", "b", "y"}, targets, {},
                          false, 5);
  EXPECT_EQ(m.targets, (std::vector<std::string>{"x", "b", "y", "a", "c"}));
  EXPECT_EQ(m.live, (std::set<std::string>{"b", "x", "y"}));
  EXPECT_TRUE(m.dropped.empty());
  // Room for one more within max_peers: the better ranked.
  m = MergeLivePeers(std::vector<std::string>{"x", "b", "y"}, targets, {},
                     false, 4);
  EXPECT_EQ(m.targets, (std::vector<std::string>{"x", "b", "a", "c"}));
  // max_peers 0: no bound.
  m = MergeLivePeers(std::vector<std::string>{"x", "y"}, targets, {}, false, 0);
  EXPECT_EQ(m.targets.size(), 5u);
  // No live peers: the schedule as it is.
  m = MergeLivePeers(std::vector<std::string>{}, targets, {}, false, 4);
  EXPECT_EQ(m.targets, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(m.live.empty());
}

TEST(LivePeersTest, PartialMeshLivePeersTakeCrossGroupSlotsOnly) {
  // Own group: o1, o2; other groups: c1, c2, c3.
  const std::set<std::string> targets = {"c1", "c2", "c3", "o1", "o2"};
  const std::set<std::string> own = {"o1", "o2"};
  auto m = MergeLivePeers(std::vector<std::string>{"x", "c2", "y"}, targets,
                          own, true, 64);
  // c2 is live already; x and y replace the last two other-group targets
  // that are not live (c3, c1), so the host probes as many peers as the
  // schedule planned.
  EXPECT_EQ(m.targets, (std::vector<std::string>{"x", "c2", "y", "o1", "o2"}));
  EXPECT_EQ(m.dropped, (std::set<std::string>{"c1", "c3"}));
  // More live peers than other-group slots: the own group keeps its slots.
  m = MergeLivePeers(std::vector<std::string>{"x", "y", "z", "w"}, targets, own,
                     true, 64);
  EXPECT_EQ(m.targets, (std::vector<std::string>{"x", "y", "z", "o1", "o2"}));
  EXPECT_EQ(m.live.size(), 3u);
  // A live peer of the own group is kept and moves first.
  m = MergeLivePeers(std::vector<std::string>{"o2"}, targets, own, true, 64);
  EXPECT_EQ(m.targets.front(), "o2");
  EXPECT_TRUE(m.dropped.empty());
  EXPECT_EQ(m.targets.size(), 5u);
}

// The real dump (tests/fixtures/netlink/rxe-cm-live, the client VM of
// tests/vm/cases/fabric_live): the application's two connections to
// 10.0.3.1 make one live peer; the exporter's own probe connections, made by
// its threads (the ids the kernel reports), are left out by thread id and,
// on their own, by the probe's port.
TEST(LivePeersTest, RealDumpYieldsTheApplicationsPeerOnly) {
  const std::string dir = nl::testing::FixtureDir("rxe-cm-live");
  auto t = nl::ReplayTransport::FromDirectory(dir);
  ASSERT_TRUE(t.ok());
  auto conns = ReadLiveConnections(*t);
  ASSERT_TRUE(conns.ok()) << conns.error().ToString();
  ASSERT_EQ(conns->size(), 4u);  // the listener is no connection
  std::int64_t holder = 0;
  std::ifstream(dir + "/holder.pid") >> holder;
  LiveExclusions by_thread;
  by_thread.own_pids = {150, 173, 174};  // the exporter and its threads
  by_thread.own_ips = {"10.0.3.2"};
  auto s = SelectLivePeers(*conns, by_thread, {}, 8);
  ASSERT_EQ(Hosts(s), std::vector<std::string>{"10.0.3.1"});
  EXPECT_EQ(s.peers[0].connections, 2);
  LiveExclusions by_port;
  by_port.fabric_port = 18530;
  s = SelectLivePeers(*conns, by_port, {}, 8);
  ASSERT_EQ(Hosts(s), std::vector<std::string>{"10.0.3.1"});
  EXPECT_EQ(s.peers[0].connections, 2);
  // Without either, the probe's own would count as the host's traffic.
  s = SelectLivePeers(*conns, LiveExclusions{}, {}, 8);
  EXPECT_EQ(s.peers[0].connections, 4);
  for (const auto& c : *conns) {
    if (c.pid == holder) {
      EXPECT_EQ(c.remote_port, 7174);
    }
  }
  // The server announced 10.0.3.1: the peer set's name for it.
  s = SelectLivePeers(*conns, by_thread, {{"10.0.3.1", "server"}}, 8);
  ASSERT_EQ(Hosts(s), std::vector<std::string>{"server"});
  EXPECT_TRUE(s.peers[0].in_peer_set);
}

}  // namespace
}  // namespace rnic::fabric
