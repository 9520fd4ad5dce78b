// The partial mesh: below the bounds every pair every period (as without
// it); above them bounded per host (peers probed, connections both ways),
// each pair of a group once a period, every group pair every period, every
// host pair within half a group x P / c periods, each pair of hosts in two
// groups probed by one end only, Sources the exact
// inverse of Targets, and the same schedule whatever the input order.
#include "collectors/fabric/mesh_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace rnic::fabric {
namespace {

// `groups` groups of `size` hosts, "g<i>-h<j>".
std::vector<MeshMember> Fleet(int groups, int size) {
  std::vector<MeshMember> out;
  for (int g = 0; g < groups; ++g) {
    for (int h = 0; h < size; ++h) {
      out.push_back({"g" + std::to_string(g) + "-h" + std::to_string(h),
                     "tor" + std::to_string(g)});
    }
  }
  return out;
}

std::map<std::string, std::string> GroupOf(const std::vector<MeshMember>& f) {
  std::map<std::string, std::string> out;
  for (const auto& m : f) out[m.host] = m.group;
  return out;
}

TEST(MeshScheduleTest, BelowTheBoundEveryPairEveryPeriod) {
  const auto fleet = Fleet(4, 5);  // 20 hosts, 19 peers each
  for (int max_peers : {0, 19, 64}) {
    MeshSchedule s(fleet, {max_peers, 1});
    EXPECT_TRUE(s.Full());
    for (std::uint64_t period : {0ull, 1ull, 123456789ull}) {
      for (const auto& m : fleet) {
        const auto t = s.Targets(m.host, period);
        ASSERT_EQ(t.size(), 19u) << m.host;
        EXPECT_EQ(std::count(t.begin(), t.end(), m.host), 0);
        EXPECT_EQ(s.Sources(m.host, period), t);
      }
    }
  }
  // One peer fewer than the fleet: partial.
  EXPECT_FALSE(MeshSchedule(fleet, {18, 1}).Full());
}

TEST(MeshScheduleTest, AHostOutsideTheSetProbesNothing) {
  MeshSchedule s(Fleet(3, 3), {4, 1});
  EXPECT_TRUE(s.Targets("stranger", 7).empty());
  EXPECT_TRUE(s.Sources("stranger", 7).empty());
}

TEST(MeshScheduleTest, BoundedOwnGroupWholeAndEveryGroupPairEachPeriod) {
  // 40 groups of 8, at most 17 peers: the next 4 of the own group (each
  // pair of it once) + ceil(2*39/8) = 10.
  const auto fleet = Fleet(40, 8);
  const auto group = GroupOf(fleet);
  MeshSchedule s(fleet, {17, 2});
  ASSERT_FALSE(s.Full());
  EXPECT_EQ(s.groups(), 40u);
  for (std::uint64_t period = 1000; period < 1010; ++period) {
    std::map<std::pair<std::string, std::string>, int> group_pairs;
    std::set<std::pair<std::string, std::string>> own_pairs;
    for (const auto& m : fleet) {
      const auto t = s.Targets(m.host, period);
      EXPECT_LE(t.size(), 17u);
      int own = 0;
      for (const auto& peer : t) {
        ASSERT_NE(peer, m.host);
        if (group.at(peer) == m.group) {
          ++own;
          own_pairs.insert(std::minmax(m.host, peer));
        } else {
          ++group_pairs[{m.group, group.at(peer)}];
        }
      }
      EXPECT_EQ(own, 4) << m.host;
    }
    EXPECT_EQ(own_pairs.size(), 40u * 8u * 7u / 2u);
    // Every ordered pair of groups, by at least k = 2 host pairs.
    ASSERT_EQ(group_pairs.size(), 40u * 39u);
    for (const auto& [gp, n] : group_pairs) EXPECT_GE(n, 2) << gp.first;
  }
}

TEST(MeshScheduleTest, SourcesAreTheInverseOfTargets) {
  for (auto [groups, size, max_peers, k] :
       {std::tuple{40, 8, 16, 2}, std::tuple{7, 13, 20, 1},
        std::tuple{1, 50, 9, 1}, std::tuple{2, 30, 12, 3},
        std::tuple{25, 3, 5, 1}}) {
    auto fleet = Fleet(groups, size);
    fleet.push_back({"loner", "tor-alone"});  // a group of one
    MeshSchedule s(fleet, {max_peers, k});
    ASSERT_FALSE(s.Full());
    for (std::uint64_t period : {0ull, 1ull, 2ull, 977ull, 1ull << 31}) {
      std::map<std::string, std::set<std::string>> inbound;
      for (const auto& m : fleet) {
        const auto t = s.Targets(m.host, period);
        EXPECT_LE(t.size(), static_cast<std::size_t>(max_peers));
        for (const auto& peer : t) inbound[peer].insert(m.host);
      }
      for (const auto& m : fleet) {
        const auto src = s.Sources(m.host, period);
        EXPECT_EQ(std::set<std::string>(src.begin(), src.end()),
                  inbound[m.host])
            << m.host << " groups " << groups << " period " << period;
      }
    }
  }
}

TEST(MeshScheduleTest, EveryHostPairWithinTheCoveragePeriods) {
  // A round trip measures both directions, so a pair of hosts in two
  // groups is probed by one of its ends only: each host walks half of
  // every other group, visiting each once per P / c periods (P = 11, the
  // other groups, sharing no factor with 5 or 6). 12 groups of 6, c =
  // ceil(1*11/6) = 2 per host: every other host within ceil(3 * 11 / 2) =
  // 17 periods. Groups of 5 and 6 (halves of at most 3): the same bound.
  auto uneven = Fleet(12, 6);
  std::erase_if(uneven, [](const MeshMember& m) {
    return m.host.ends_with("-h5") && m.group < "tor6";
  });
  for (const auto& fleet : {Fleet(12, 6), uneven}) {
    const auto group = GroupOf(fleet);
    MeshSchedule s(fleet, {8, 1});
    ASSERT_FALSE(s.Full());
    std::set<std::pair<std::string, std::string>> probed;  // (from, to)
    for (std::uint64_t period = 5000; period < 5017; ++period) {
      for (const auto& m : fleet) {
        for (const auto& peer : s.Targets(m.host, period))
          probed.insert({m.host, peer});
      }
    }
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& [a, b] : probed) {
      seen.insert(std::minmax(a, b));
      if (group.at(a) != group.at(b)) {
        EXPECT_EQ(probed.count({b, a}), 0u) << a << " and " << b;
      }
    }
    EXPECT_EQ(seen.size(), fleet.size() * (fleet.size() - 1) / 2);
  }
}

TEST(MeshScheduleTest, HostsProbingIntoAGroupSpreadOverItsMembers) {
  // 320 groups of 32 at most 28 peers a direction: each group probes 12
  // a host into the others, 384 probes a period spread over the 319
  // other groups; into a group of 32 about 12 a member.
  const auto fleet = Fleet(320, 32);
  MeshSchedule s(fleet, {64, 3, 64});
  ASSERT_EQ(s.Share("g0-h0"), (std::pair{16, 12}));
  std::map<std::string, int> in;
  for (const auto& m : fleet) {
    for (const auto& peer : s.Targets(m.host, 176470000))
      if (peer.substr(0, peer.find('-')) != m.host.substr(0, m.host.find('-')))
        ++in[peer];
  }
  for (const auto& m : fleet) {
    EXPECT_GE(in[m.host], 10) << m.host;
    EXPECT_LE(in[m.host], 14) << m.host;
  }
}

TEST(MeshScheduleTest, AGroupLargerThanTheBoundRotatesWithinItself) {
  // No labels: one group of 30 hosts, 5 peers a period: every pair
  // within 15 / 5 = 3 periods (offsets 1 to 15 after each host), 5 out and
  // 5 in per host.
  std::vector<MeshMember> fleet;
  for (int h = 0; h < 30; ++h) fleet.push_back({"h" + std::to_string(h), ""});
  MeshSchedule s(fleet, {5, 1});
  std::set<std::pair<std::string, std::string>> seen;
  for (std::uint64_t period = 0; period < 3; ++period) {
    for (const auto& m : fleet) {
      const auto t = s.Targets(m.host, period);
      EXPECT_EQ(t.size(), 5u);
      EXPECT_EQ(s.Sources(m.host, period).size(), 5u);
      for (const auto& peer : t) seen.insert(std::minmax(m.host, peer));
    }
  }
  EXPECT_EQ(seen.size(), 30u * 29u / 2u);
}

TEST(MeshScheduleTest, ConnectionsBothWaysWithinTheBound) {
  // 40 groups of 16: the next 8 of the own group and, from k = 3, 8 of
  // the others wanted; 32 connections both ways leave 14 a direction (an
  // eighth kept for the uneven spread of incoming ones), so the
  // cross-group share shrinks to 6, still reaching all 39 other groups
  // from each group (16 x 6 >= 39).
  const auto fleet = Fleet(40, 16);
  const auto group = GroupOf(fleet);
  MeshSchedule s(fleet, {64, 3, 32});
  ASSERT_FALSE(s.Full());
  EXPECT_EQ(s.Share("g0-h0"), (std::pair{8, 6}));
  for (std::uint64_t period = 70; period < 74; ++period) {
    std::set<std::pair<std::string, std::string>> group_pairs;
    for (const auto& m : fleet) {
      const auto t = s.Targets(m.host, period);
      EXPECT_LE(t.size() + s.Sources(m.host, period).size(), 32u) << m.host;
      for (const auto& peer : t) {
        if (group.at(peer) != m.group)
          group_pairs.insert({m.group, group.at(peer)});
      }
    }
    EXPECT_EQ(group_pairs.size(), 40u * 39u);
  }
}

TEST(MeshScheduleTest, DetailPeersAreProbedEveryPeriod) {
  const auto fleet = Fleet(20, 10);
  MeshSchedule s(fleet, {16, 1});
  const auto detail = s.Detail("g3-h9", 3);
  EXPECT_EQ(detail, (std::vector<std::string>{"g3-h0", "g3-h1", "g3-h2"}));
  for (std::uint64_t period = 0; period < 5; ++period) {
    const auto t = s.Targets("g3-h9", period);
    for (const auto& d : detail)
      EXPECT_TRUE(std::binary_search(t.begin(), t.end(), d)) << d;
  }
  // No more than the own group's half: the pairs probed from this end.
  EXPECT_EQ(s.Detail("g3-h9", 100).size(), 5u);
  EXPECT_TRUE(s.Detail("stranger", 3).empty());
  // A full mesh: every peer.
  EXPECT_EQ(MeshSchedule(Fleet(2, 3), {64, 1}).Detail("g0-h0", 2).size(), 5u);
}

TEST(MeshScheduleTest, TheSameScheduleWhateverTheOrderOfThePeerSet) {
  auto fleet = Fleet(9, 7);
  MeshSchedule a(fleet, {10, 2});
  std::mt19937 rng(42);
  std::shuffle(fleet.begin(), fleet.end(), rng);
  fleet.push_back(fleet.front());  // a duplicate changes nothing
  MeshSchedule b(fleet, {10, 2});
  for (const auto& m : fleet) {
    EXPECT_EQ(a.Targets(m.host, 31), b.Targets(m.host, 31));
    EXPECT_EQ(a.Sources(m.host, 31), b.Sources(m.host, 31));
  }
  // And the schedule moves on with the period.
  EXPECT_NE(a.Targets("g0-h0", 31), a.Targets("g0-h0", 32));
}

TEST(MeshScheduleTest, PeriodOfWallClock) {
  EXPECT_EQ(MeshPeriod(0, 10000), 0u);
  EXPECT_EQ(MeshPeriod(9999, 10000), 0u);
  EXPECT_EQ(MeshPeriod(10000, 10000), 1u);
  EXPECT_EQ(MeshPeriod(1764700000000, 10000), 176470000u);
  EXPECT_EQ(MeshPeriod(-5, 10000), 0u);
  EXPECT_EQ(MeshPeriod(5, 0), 0u);
}

}  // namespace
}  // namespace rnic::fabric
