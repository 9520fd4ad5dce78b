// The engine's host-testable side: peers, the address exchange, pairing,
// self-detection, the endpoints and the failure accounting of a pair whose
// connection cannot be made (no RDMA here, or an address that does not
// exist: either way the pair is down and counted, never a crash).
#include "collectors/fabric/fabric_engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <utility>

namespace rnic::fabric {
namespace {

using probe::Operation;

bool WaitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 3000 && !cond(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

std::string Sample(const EndpointReply& r, const std::string& name) {
  if (!r.metrics) return "";
  for (const auto& f : r.metrics->families()) {
    if (f.name == name && !f.metric.empty())
      return std::to_string(f.metric[0].gauge.value);
  }
  return "";
}

TEST(FabricEngineTest, PairsFromTheExchangeAreProbedAndCounted) {
  FabricConfig cfg;
  cfg.peers = {{"node-b", 0, {}}, {"node-self", 0, {}}, {"node-down", 0, {}}};
  cfg.interval = std::chrono::milliseconds(100);
  cfg.connect_timeout = std::chrono::milliseconds(50);
  cfg.backoff_initial = std::chrono::milliseconds(10);
  cfg.backoff_max = std::chrono::milliseconds(20);
  cfg.cpu_budget_percent = 0;
  auto stats = std::make_shared<FabricStats>();
  std::string self_json;
  std::mutex mu;
  std::map<std::string, int> asked;
  EngineDeps deps;
  // TEST-NET-1: an address no host has.
  deps.local = [] {
    return std::vector<DeviceAddress>{{"mlx5_0", "192.0.2.1", 24},
                                      {"mlx5_1", "198.51.100.1", 24}};
  };
  deps.resolver = nullptr;
  deps.http_get = [&](const std::string& host, int port, const std::string&,
                      std::chrono::milliseconds) -> Result<std::string> {
    std::lock_guard g(mu);
    ++asked[host + ":" + std::to_string(port)];
    if (host == "node-b") {
      return AddressesToJson(
          {18531, "beef", {{"mlx5_0", "192.0.2.2", 24}}});  // rail 0 only
    }
    if (host == "node-self") return self_json;
    return Error{"connection refused"};
  };
  FabricEngine engine(cfg, kDefaultPort, -1, stats, std::move(deps));
  self_json = engine.Addresses().body;  // before Start: no race
  ASSERT_NE(self_json.find("\"id\":\""), std::string::npos);
  engine.Start();
  const PairKey pair{"mlx5_0", "node-b", "mlx5_0"};
  ASSERT_TRUE(WaitFor([&] {
    return stats->Probes(pair, Operation::kSend, "not_connected") >= 2;
  }));
  EXPECT_EQ(stats->PeerUp(pair), 0.0);
  // Rail 1 has no partner on node-b; node-self is this engine; node-down
  // never answered the exchange: no pairs for any of them.
  EXPECT_FALSE(stats->PeerUp({"mlx5_1", "node-b", "mlx5_0"}).has_value());
  EXPECT_FALSE(stats->PeerUp({"mlx5_0", "node-self", "mlx5_0"}).has_value());
  EXPECT_FALSE(stats->PeerUp({"mlx5_0", "node-down", "mlx5_0"}).has_value());
  {
    std::lock_guard g(mu);
    EXPECT_GE(asked["node-b:9709"], 1);
    EXPECT_GE(asked["node-down:9709"], 1);
  }
  // The local addresses as a peer sees them.
  const auto mine = ParseAddressesJson(engine.Addresses().body);
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(mine->addresses.size(), 2u);
  // /probe: outside the peer set refused, a peer probed (and failing here).
  EndpointRequest req;
  req.query = {{"target", "8.8.8.8"}};
  auto r = engine.ProbeOnce(req);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "target 8.8.8.8 is not in the peer set\n");
  req.query = {{"target", "192.0.2.2"}, {"operation", "send"}};
  r = engine.ProbeOnce(req);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Sample(r, "rnic_fabric_probe_success"), "0.000000");
  EXPECT_EQ(Sample(r, "rnic_fabric_probe_failures"),
            std::to_string(static_cast<double>(cfg.iterations)));
  req.query_ok = false;
  EXPECT_EQ(engine.ProbeOnce(req).status, 400);
  engine.Stop();
}

// Prometheus scrapes several /probe targets of one exporter, sometimes at
// the same moment: a request that finds a round running waits for it, up to
// a second, instead of failing (a 503 every time when two jobs' scrape
// offsets were close).
TEST(FabricEngineTest, ConcurrentProbeRequestsWaitForTheRunningRound) {
  FabricConfig cfg;
  cfg.peers = {{"node-slow", 0, {}}};
  cfg.cpu_budget_percent = 0;
  std::atomic<int> delay_ms{200};
  std::atomic<bool> in_round{false};
  EngineDeps deps;
  deps.local = [] {
    return std::vector<DeviceAddress>{{"mlx5_0", "192.0.2.1", 24}};
  };
  deps.resolver = nullptr;
  // No address of the peer is known, so a round asks for them itself while
  // it holds the round: this long.
  deps.http_get = [&](const std::string&, int, const std::string&,
                      std::chrono::milliseconds) -> Result<std::string> {
    in_round = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    return Error{"connection refused"};
  };
  FabricEngine engine(cfg, kDefaultPort, -1, std::make_shared<FabricStats>(),
                      std::move(deps));
  engine.Start();  // its first round learns the peer set
  EndpointRequest req;
  req.query = {{"target", "node-slow"}};
  ASSERT_TRUE(WaitFor([&] { return engine.ProbeOnce(req).status == 200; }));
  // From here only the requests below ask the peer (no background round).
  engine.Stop();
  auto two_at_once = [&] {
    in_round = false;
    EndpointReply first;
    std::thread t([&] { first = engine.ProbeOnce(req); });
    // The second comes while the first holds the round, on any host load.
    EXPECT_TRUE(WaitFor([&] { return in_round.load(); }));
    EndpointReply second = engine.ProbeOnce(req);
    t.join();
    return std::pair{first.status, second.status};
  };
  // A 200 ms round: the second request waits (up to 1 s) and runs its own.
  EXPECT_EQ(two_at_once(), (std::pair{200, 200}));
  // A round past the wait: the second is refused, not queued forever.
  delay_ms = 3000;
  EXPECT_EQ(two_at_once(), (std::pair{200, 503}));
}

// Above fabric.mesh.max_peers only this host's share of the partial mesh
// is asked for its addresses and probed, so the per-peer series (pairs,
// exchange failures) follow the bound, not the fleet; the host announces
// its group.
TEST(FabricEngineTest, AboveTheBoundOnlyScheduledPeersAreExchangedAndProbed) {
  FabricConfig cfg;
  std::vector<MeshMember> members;
  std::map<std::string, int> number;
  for (int g = 0; g < 4; ++g) {
    for (int h = 0; h < 5; ++h) {
      const std::string host =
          "h" + std::to_string(g) + "-" + std::to_string(h);
      const std::string tor = "t" + std::to_string(g);
      cfg.peers.push_back({host, 0, {{"tor", tor}}});
      members.push_back({host, tor});
      number[host] = 10 + 5 * g + h;
    }
  }
  // 19 peers: the next 5 / 2 = 2 of the own group (each pair of it once)
  // + ceil(1 * 3 / 5) = 1 other per period.
  cfg.mesh.max_peers = 6;
  cfg.mesh.representatives = 1;
  cfg.mesh.rotation = std::chrono::hours(24);
  cfg.interval = std::chrono::milliseconds(50);
  cfg.connect_timeout = std::chrono::milliseconds(50);
  cfg.backoff_initial = std::chrono::milliseconds(10);
  cfg.backoff_max = std::chrono::milliseconds(20);
  cfg.cpu_budget_percent = 0;
  auto stats = std::make_shared<FabricStats>();
  std::mutex mu;
  std::set<std::string> asked;
  EngineDeps deps;
  deps.local = [] {
    return std::vector<DeviceAddress>{{"mlx5_0", "192.0.2.1", 24}};
  };
  deps.self_names = [] { return std::set<std::string>{"h0-0", "192.0.2.1"}; };
  deps.group = "t0";
  deps.http_get = [&](const std::string& host, int, const std::string&,
                      std::chrono::milliseconds) -> Result<std::string> {
    std::lock_guard g(mu);
    asked.insert(host);
    const std::string ip = "192.0.2." + std::to_string(number.at(host));
    return AddressesToJson({kDefaultPort, "", {{"mlx5_0", ip, 24}}, ""});
  };
  FabricEngine engine(cfg, kDefaultPort, -1, stats, std::move(deps));
  EXPECT_NE(engine.Addresses().body.find("\"group\":\"t0\""),
            std::string::npos);
  engine.Start();
  const MeshSchedule ref(members, {6, 1, cfg.max_connections});
  const auto period =
      MeshPeriod(std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count(),
                 cfg.mesh.rotation.count());
  const auto targets = ref.Targets("h0-0", period);
  ASSERT_EQ(targets.size(), 3u);
  // Two rounds over the first target: every target's pair exists by then.
  ASSERT_TRUE(WaitFor([&] {
    return stats->Probes({"mlx5_0", targets.front(), "mlx5_0"},
                         Operation::kSend, "not_connected") >= 2;
  }));
  engine.Stop();
  // The period could have turned midnight meanwhile: either day's.
  std::set<std::string> may_ask, may_probe;
  for (auto n : {period, period + 1, period + 2}) {
    for (const auto& h : ref.Targets("h0-0", n)) may_ask.insert(h);
    for (const auto& h : ref.Sources("h0-0", n)) may_ask.insert(h);
    if (n < period + 2)
      for (const auto& h : ref.Targets("h0-0", n)) may_probe.insert(h);
  }
  std::lock_guard g(mu);
  EXPECT_LT(asked.size(), 19u);
  for (const auto& h : asked) EXPECT_TRUE(may_ask.count(h) > 0) << h;
  for (const auto& h : targets) EXPECT_TRUE(asked.count(h) > 0) << h;
  // The own group's detail peers (both of them) per pair; every probe per
  // group, the one of another group, which rotates, per group only.
  std::size_t probed = 0;
  for (const auto& m : members) {
    if (!stats->PeerUp({"mlx5_0", m.host, "mlx5_0"}).has_value()) continue;
    ++probed;
    EXPECT_TRUE(may_probe.count(m.host) > 0) << m.host;
    EXPECT_EQ(m.group, "t0") << m.host;
  }
  EXPECT_EQ(probed, 2u);
  EXPECT_GE(stats->GroupProbes("t0", "not_connected"), 4);
  double cross = 0;
  for (const auto& t : {"t1", "t2", "t3"})
    cross += stats->GroupProbes(t, "not_connected");
  EXPECT_GE(cross, 2);
}

// A peer set without labels (DNS): the peers' groups come from their
// announcements, asked max_peers a round, so every peer's group is known
// long before the mesh itself would have reached every peer.
TEST(FabricEngineTest, GroupsOfUnlabelledPeersAreLearnedFromTheirAnswers) {
  FabricConfig cfg;
  for (int h = 0; h < 12; ++h) cfg.peers.push_back({"p" + std::to_string(h)});
  cfg.mesh.max_peers = 3;
  cfg.mesh.rotation = std::chrono::hours(24);
  cfg.interval = std::chrono::milliseconds(20);
  cfg.cpu_budget_percent = 0;
  std::mutex mu;
  std::map<std::string, int> asked;
  EngineDeps deps;
  deps.local = [] { return std::vector<DeviceAddress>{}; };
  deps.self_names = [] { return std::set<std::string>{"p0"}; };
  deps.http_get = [&](const std::string& host, int, const std::string&,
                      std::chrono::milliseconds) -> Result<std::string> {
    std::lock_guard g(mu);
    ++asked[host];
    // Four racks of three; no addresses, so nothing is probed.
    return AddressesToJson(
        {kDefaultPort, "", {}, "rack" + std::to_string(host.back() % 4)});
  };
  FabricEngine engine(cfg, kDefaultPort, -1, std::make_shared<FabricStats>(),
                      std::move(deps));
  engine.Start();
  EXPECT_TRUE(WaitFor([&] {
    std::lock_guard g(mu);
    return asked.size() == 11;
  }));
  engine.Stop();
  std::lock_guard g(mu);
  EXPECT_EQ(asked.count("p0"), 0u);  // this host
  // Each once: a known group is not asked again within refresh_interval.
  for (const auto& [host, n] : asked) EXPECT_EQ(n, 1) << host;
}

// One sample of the stats' output: a gauge's or counter's value, or -1.
double StatValue(const FabricStats& stats, const std::string& name) {
  MetricSet out;
  stats.AppendTo(out);
  for (const auto& f : out.families()) {
    if (f.name != name || f.metric.empty()) continue;
    return f.type == prometheus::MetricType::Counter ? f.metric[0].counter.value
                                                     : f.metric[0].gauge.value;
  }
  return -1;
}

// fabric.live_peers with no peer set: the hosts of this host's rdma_cm
// connections (the probe's own left out) are asked for their addresses and
// probed per pair, the most connected first within max_peers; a host whose
// connections end leaves with its series; a failing dump costs the source
// one counter and keeps the last good list.
TEST(FabricEngineTest, LivePeersAreProbedAndLeaveWithTheirConnections) {
  FabricConfig cfg;
  cfg.live_peers.enabled = true;
  cfg.live_peers.max_peers = 1;
  cfg.refresh = std::chrono::milliseconds(1000);
  cfg.interval = std::chrono::milliseconds(50);
  cfg.connect_timeout = std::chrono::milliseconds(50);
  cfg.backoff_initial = std::chrono::milliseconds(10);
  cfg.backoff_max = std::chrono::milliseconds(20);
  cfg.cpu_budget_percent = 0;
  auto stats = std::make_shared<FabricStats>();
  std::mutex mu;
  std::vector<LiveConnection> conns = {
      {"192.0.2.1", 40000, "192.0.2.7", 7174, 1},
      {"192.0.2.1", 40001, "192.0.2.9", 7174, 1},
      {"192.0.2.1", 40002, "192.0.2.9", 7175, 1},
      // The same host on its second rail, which it announces.
      {"198.51.100.1", 40004, "198.51.100.9", 7174, 1},
      // This process's own connection (any port): never a live peer.
      {"192.0.2.1", 40003, "192.0.2.8", 7174,
       static_cast<std::int64_t>(::getpid())}};
  bool fail = false;
  std::set<std::string> asked;
  EngineDeps deps;
  deps.local = [] {
    return std::vector<DeviceAddress>{{"mlx5_0", "192.0.2.1", 24}};
  };
  deps.live = [&]() -> Result<std::vector<LiveConnection>> {
    std::lock_guard g(mu);
    if (fail) return Error{"rdma netlink: operation not permitted", EPERM};
    return conns;
  };
  deps.http_get = [&](const std::string& host, int port, const std::string&,
                      std::chrono::milliseconds) -> Result<std::string> {
    std::lock_guard g(mu);
    asked.insert(host + ":" + std::to_string(port));
    if (host == "192.0.2.9") {
      return AddressesToJson(
          {kDefaultPort,
           "b9",
           {{"mlx5_0", host, 24}, {"mlx5_1", "198.51.100.9", 24}}});
    }
    return AddressesToJson({kDefaultPort, "b7", {{"mlx5_0", host, 24}}});
  };
  FabricEngine engine(cfg, kDefaultPort, -1, stats, std::move(deps));
  engine.Start();
  // 192.0.2.9 holds two connections: with max_peers 1 it is the one.
  const PairKey nine{"mlx5_0", "192.0.2.9", "mlx5_0"};
  ASSERT_TRUE(WaitFor([&] { return stats->PeerUp(nine).has_value(); }));
  EXPECT_FALSE(stats->PeerUp({"mlx5_0", "192.0.2.7", "mlx5_0"}).has_value());
  EXPECT_FALSE(stats->PeerUp({"mlx5_0", "192.0.2.8", "mlx5_0"}).has_value());
  // Once 192.0.2.9 announced its second rail, its connection there counts
  // for it: two hosts, not three.
  ASSERT_TRUE(WaitFor(
      [&] { return StatValue(*stats, "rnic_fabric_live_peers") == 2; }));
  EXPECT_EQ(StatValue(*stats, "rnic_fabric_live_peers_probed"), 1);
  EXPECT_EQ(StatValue(*stats, "rnic_fabric_peers"), 0);  // the peer set
  {
    std::lock_guard g(mu);
    EXPECT_EQ(asked.count("192.0.2.9:9709"), 1u);
    EXPECT_EQ(asked.count("192.0.2.8:9709"), 0u);
    // The dump fails: counted, the last good list stays.
    fail = true;
  }
  ASSERT_TRUE(WaitFor([&] {
    return StatValue(*stats, "rnic_fabric_live_peers_dump_failures_total") >= 1;
  }));
  EXPECT_TRUE(stats->PeerUp(nine).has_value());
  {
    std::lock_guard g(mu);
    fail = false;
    conns.erase(conns.begin() + 1, conns.begin() + 4);  // 192.0.2.9 ends
  }
  // The next dump: 192.0.2.9 leaves with its series, 192.0.2.7 comes.
  ASSERT_TRUE(WaitFor([&] { return !stats->PeerUp(nine).has_value(); }));
  ASSERT_TRUE(WaitFor([&] {
    return stats->PeerUp({"mlx5_0", "192.0.2.7", "mlx5_0"}).has_value();
  }));
  engine.Stop();
}

// In a partial mesh a live peer of the peer set takes the slot of the
// period's other-group peer: the host probes as many peers as the schedule
// planned, the live one per pair (counters, no histogram) and in its group.
TEST(FabricEngineTest, PartialMeshLivePeerTakesTheOtherGroupSlot) {
  FabricConfig cfg;
  for (int g = 0; g < 4; ++g) {
    for (int h = 0; h < 5; ++h) {
      cfg.peers.push_back({"192.0.2." + std::to_string(10 + 5 * g + h),
                           0,
                           {{"tor", "t" + std::to_string(g)}}});
    }
  }
  // 19 peers: 2 of the own group and 1 other per period.
  cfg.mesh.max_peers = 6;
  cfg.mesh.representatives = 1;
  cfg.mesh.rotation = std::chrono::hours(24);
  cfg.live_peers.enabled = true;
  cfg.interval = std::chrono::milliseconds(50);
  cfg.connect_timeout = std::chrono::milliseconds(50);
  cfg.backoff_initial = std::chrono::milliseconds(10);
  cfg.backoff_max = std::chrono::milliseconds(20);
  cfg.cpu_budget_percent = 0;
  auto stats = std::make_shared<FabricStats>();
  EngineDeps deps;
  deps.local = [] {
    return std::vector<DeviceAddress>{{"mlx5_0", "192.0.2.10", 24}};
  };
  deps.self_names = [] { return std::set<std::string>{"192.0.2.10"}; };
  deps.group = "t0";
  deps.http_get = [&](const std::string& host, int, const std::string&,
                      std::chrono::milliseconds) -> Result<std::string> {
    return AddressesToJson({kDefaultPort, "", {{"mlx5_0", host, 24}}, ""});
  };
  // An application's two connections into group t2.
  deps.live = []() -> Result<std::vector<LiveConnection>> {
    return std::vector<LiveConnection>{
        {"192.0.2.10", 40000, "192.0.2.23", 7174, 1},
        {"192.0.2.10", 40001, "192.0.2.23", 7175, 1}};
  };
  FabricEngine engine(cfg, kDefaultPort, -1, stats, std::move(deps));
  engine.Start();
  const PairKey live{"mlx5_0", "192.0.2.23", "mlx5_0"};
  ASSERT_TRUE(WaitFor([&] {
    return stats->Probes(live, Operation::kSend, "not_connected") >= 2;
  }));
  engine.Stop();
  EXPECT_EQ(StatValue(*stats, "rnic_fabric_live_peers"), 1);
  EXPECT_EQ(StatValue(*stats, "rnic_fabric_live_peers_probed"), 1);
  // 2 own-group peers and the live one in the other group's slot.
  EXPECT_EQ(StatValue(*stats, "rnic_fabric_scheduled_peers"), 3);
  EXPECT_FALSE(stats->Rtt(live, Operation::kSend, 64).has_value());
  EXPECT_GE(stats->GroupProbes("t2", "not_connected"), 2);
}

// Without --collector.fabric.group a host announces no group: peers take
// its first address's subnet, and exporters that predate the key keep
// reading its answers.
TEST(FabricEngineTest, WithoutAGroupNoneIsAnnounced) {
  EngineDeps deps;
  deps.local = [] {
    return std::vector<DeviceAddress>{{"mlx5_0", "192.0.2.1", 24}};
  };
  FabricEngine engine(FabricConfig{}, kDefaultPort, -1,
                      std::make_shared<FabricStats>(), std::move(deps));
  engine.Start();
  ASSERT_TRUE(WaitFor([&] {
    return engine.Addresses().body.find("192.0.2.1") != std::string::npos;
  }));
  engine.Stop();
  EXPECT_EQ(engine.Addresses().body.find("group"), std::string::npos);
}

}  // namespace
}  // namespace rnic::fabric
