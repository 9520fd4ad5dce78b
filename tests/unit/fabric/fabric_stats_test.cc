#include "collectors/fabric/fabric_stats.h"

#include <gtest/gtest.h>

#include <set>

#include "collectors/fabric/fabric_families.h"
#include "collectors/probing/latency_buckets.h"

namespace rnic::fabric {
namespace {

using probe::Operation;

const PairKey kA{"mlx5_0", "node-a", "mlx5_0"};
const PairKey kB{"mlx5_0", "node-b", "mlx5_0"};
const PairKey kC{"mlx5_0", "node-c", "mlx5_0"};

std::set<std::string> FamilyNames(const FabricStats& s) {
  MetricSet set;
  s.AppendTo(set);
  std::set<std::string> out;
  for (const auto& f : set.families()) out.insert(f.name);
  return out;
}

TEST(FabricStatsTest, PerPairHistogramsWithoutGroupBy) {
  FabricStats s;
  const double rtts[] = {10e-6, 20e-6};
  s.RecordRtts(kA, "", Operation::kSend, 64, rtts);
  s.RecordRtts(kA, "", Operation::kSend, 64, rtts);
  auto h = s.Rtt(kA, Operation::kSend, 64);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->sample_count, 4u);
  EXPECT_FALSE(s.GroupRtt("mlx5_0", "", Operation::kSend, 64).has_value());
  const auto names = FamilyNames(s);
  EXPECT_EQ(names.count("rnic_fabric_rtt_seconds"), 1u);
  EXPECT_EQ(names.count("rnic_fabric_group_rtt_seconds"), 0u);
}

TEST(FabricStatsTest, GroupByAggregatesHistogramsKeepsPerPeerCounters) {
  FabricStats s("tor");
  const double one[] = {10e-6};
  s.RecordRtts(kA, "t1", Operation::kWrite, 64, one);
  s.RecordRtts(kB, "t1", Operation::kWrite, 64, one);
  s.RecordRtts(kC, "t2", Operation::kWrite, 64, one);
  s.RecordProbes(kA, Operation::kWrite, "ok");
  s.RecordProbes(kB, Operation::kWrite, "timeout");
  auto t1 = s.GroupRtt("mlx5_0", "t1", Operation::kWrite, 64);
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->sample_count, 2u);
  EXPECT_EQ(s.GroupRtt("mlx5_0", "t2", Operation::kWrite, 64)->sample_count,
            1u);
  EXPECT_FALSE(s.Rtt(kA, Operation::kWrite, 64).has_value());
  EXPECT_EQ(s.Probes(kB, Operation::kWrite, "timeout"), 1);
  EXPECT_EQ(s.Probes(kA, Operation::kWrite, "ok"), 1);
  const auto names = FamilyNames(s);
  EXPECT_EQ(names.count("rnic_fabric_rtt_seconds"), 0u);
  EXPECT_EQ(names.count("rnic_fabric_group_rtt_seconds"), 1u);
  EXPECT_EQ(names.count("rnic_fabric_probes_total"), 1u);
}

TEST(FabricStatsTest, ReconnectsCountFromTheSecondConnection) {
  FabricStats s;
  s.RecordConnected(kA, 100);
  s.RecordConnected(kA, 200);
  s.RecordConnected(kA, 300);
  MetricSet set;
  s.AppendTo(set);
  bool found = false;
  for (const auto& f : set.families()) {
    if (f.name == "rnic_fabric_reconnects_total") {
      ASSERT_EQ(f.metric.size(), 1u);
      EXPECT_EQ(f.metric[0].counter.value, 2);
      found = true;
    }
    if (f.name == "rnic_fabric_last_connected_timestamp_seconds") {
      EXPECT_EQ(f.metric[0].gauge.value, 300);
    }
  }
  EXPECT_TRUE(found);
}

TEST(FabricStatsTest, ForgetPairDropsItsSeries) {
  FabricStats s;
  const double one[] = {1e-5};
  s.RecordRtts(kA, "", Operation::kSend, 64, one);
  s.RecordCompletionError(kA, Operation::kSend,
                          "transport_retry_counter_exceeded");
  s.RecordConnectFailure(kA, "rejected");
  s.SetPeerUp(kA, true);
  s.SetPeerUp(kB, false);
  s.ForgetPair(kA);
  EXPECT_FALSE(s.PeerUp(kA).has_value());
  EXPECT_EQ(s.PeerUp(kB), 0.0);
  MetricSet set;
  s.AppendTo(set);
  for (const auto& f : set.families()) {
    for (const auto& m : f.metric) {
      for (const auto& l : m.label) {
        EXPECT_NE(l.value, "node-a") << f.name;
      }
    }
  }
}

// The mesh's info series follow the schedule: a peer no longer probed, or
// one whose group changed, leaves; this host's series is replaced.
TEST(FabricStatsTest, MeshInfoFollowsTheSchedule) {
  FabricStats s;
  auto labels = [&s](const std::string& family) {
    MetricSet set;
    s.AppendTo(set);
    std::set<std::string> out;
    for (const auto& f : set.families()) {
      if (f.name != family) continue;
      for (const auto& m : f.metric) {
        std::string l;
        for (const auto& p : m.label) l += p.name + "=" + p.value + ",";
        out.insert(l + std::to_string(m.gauge.value));
      }
    }
    return out;
  };
  s.SetMesh("node-self", "t0", {{"node-a", "t1"}, {"node-b", "t2"}});
  EXPECT_EQ(labels("rnic_fabric_mesh_info"),
            std::set<std::string>{"host=node-self,group=t0,1.000000"});
  EXPECT_EQ(labels("rnic_fabric_peer_group_info"),
            (std::set<std::string>{"peer=node-a,group=t1,1.000000",
                                   "peer=node-b,group=t2,1.000000"}));
  s.SetMesh("node-self", "10.0.0.0/24", {{"node-b", "t3"}, {"node-c", "t1"}});
  EXPECT_EQ(labels("rnic_fabric_mesh_info"),
            std::set<std::string>{"host=node-self,group=10.0.0.0/24,1.000000"});
  EXPECT_EQ(labels("rnic_fabric_peer_group_info"),
            (std::set<std::string>{"peer=node-b,group=t3,1.000000",
                                   "peer=node-c,group=t1,1.000000"}));
}

// The pairs of a partial mesh rotate: every probe counts per group (the
// own group's RTTs in one coarse histogram per device, every group's in an
// RTT sum); only detail pairs keep per-pair counters, never histograms; a
// pair that stops being per pair loses its series.
TEST(FabricStatsTest, GroupedPairsCountPerGroupDetailPairsPerPairToo) {
  FabricStats s;
  const double one[] = {1e-5, 3e-5};
  s.SetPeerUp(kA, true);
  s.RecordRtts(kC, "", Operation::kSend, 64, one);
  ASSERT_TRUE(s.Rtt(kC, Operation::kSend, 64).has_value());
  s.SetGrouped({{kA, {"t1", false, false}},
                {kB, {"t1", false, false}},
                {kC, {"t0", true, true}}});
  EXPECT_FALSE(s.PeerUp(kA).has_value());
  EXPECT_FALSE(s.Rtt(kC, Operation::kSend, 64).has_value());
  s.RecordProbes(kA, Operation::kSend, "ok", 5);
  s.RecordProbes(kB, Operation::kWrite, "timeout");
  s.RecordRtts(kA, "", Operation::kSend, 64, one);
  s.RecordCompletionError(kB, Operation::kWrite, "x");
  s.RecordConnectFailure(kB, "rejected");
  s.RecordConnected(kB, 1);
  s.SetPeerUp(kB, false);
  s.RecordProbes(kC, Operation::kSend, "ok", 2);
  s.RecordRtts(kC, "", Operation::kSend, 64, one);
  s.SetPeerUp(kC, true);
  EXPECT_EQ(s.GroupProbes("t1", "ok"), 5);
  EXPECT_EQ(s.GroupProbes("t1", "timeout"), 1);
  EXPECT_EQ(s.GroupProbes("t0", "ok"), 2);
  EXPECT_DOUBLE_EQ(s.GroupOkRtt("t1"), 4e-5);
  EXPECT_DOUBLE_EQ(s.GroupOkRtt("t0"), 4e-5);
  EXPECT_EQ(s.Probes(kA, Operation::kSend, "ok"), 0);
  EXPECT_FALSE(s.PeerUp(kB).has_value());
  EXPECT_FALSE(s.Rtt(kA, Operation::kSend, 64).has_value());
  // The detail pair: counters per pair, its RTTs in its group's histogram
  // with the coarse buckets; no histogram for the other group.
  EXPECT_EQ(s.Probes(kC, Operation::kSend, "ok"), 2);
  EXPECT_EQ(s.PeerUp(kC), 1.0);
  EXPECT_FALSE(s.Rtt(kC, Operation::kSend, 64).has_value());
  const auto own = s.GroupRtt("mlx5_0", "t0", Operation::kSend, 64);
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->sample_count, 2u);
  EXPECT_EQ(own->bucket.size(), probe::CoarseLatencyBuckets().size() + 1);
  EXPECT_FALSE(s.GroupRtt("mlx5_0", "t1", Operation::kSend, 64).has_value());
  // A full mesh again: per pair.
  s.SetGrouped({});
  s.SetPeerUp(kA, true);
  EXPECT_EQ(s.PeerUp(kA), 1.0);
}

TEST(FabricStatsTest, EveryFamilyIsDeclaredWithItsLabels) {
  FabricStats s("tor");
  const double one[] = {1e-5};
  s.RecordRtts(kA, "t1", Operation::kSend, 64, one);
  s.RecordProbes(kA, Operation::kSend, "ok");
  s.RecordCompletionError(kA, Operation::kSend, "x");
  s.RecordConnectFailure(kA, "rejected");
  s.RecordConnected(kA, 1);
  s.SetPeerUp(kA, true);
  s.RecordExchangeFailure("node-a");
  s.SetResponderConnections("mlx5_0", 1);
  s.RecordAccepted("mlx5_0");
  s.RecordRefused("mlx5_0", "not_in_peer_set");
  s.AddCpuSeconds(0.1);
  s.SetScheduledPeers(3);
  s.SetGrouped({{kC, {"t9", false, false}}});
  s.RecordProbes(kC, Operation::kSend, "ok");
  s.RecordRtts(kC, "", Operation::kSend, 64, one);
  s.SetMesh("node-self", "t0", {{"node-a", "t1"}});
  s.SetLivePeers(2, 1);
  s.RecordLiveDumpFailure();
  MetricSet set;
  s.AppendTo(set);
  std::size_t families = 0;
  for (const auto& f : set.raw()) {
    ++families;
    bool declared = false;
    for (const FamilyDesc* d : families::kAll) declared |= d == f.desc;
    EXPECT_TRUE(declared) << f.desc->name;
    for (const auto& m : f.client) {
      std::string labels;
      for (const auto& l : m.label) {
        if (l.name == "le") continue;
        labels += (labels.empty() ? "" : ",") + l.name;
      }
      EXPECT_EQ(labels, f.desc->labels) << f.desc->name;
    }
  }
  EXPECT_EQ(families, std::size(families::kAll) - 1);  // no per-pair rtt
  EXPECT_EQ(s.Refused("mlx5_0", "not_in_peer_set"), 1);
}

}  // namespace
}  // namespace rnic::fabric
