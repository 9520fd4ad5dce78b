#include "collectors/roce/ethtool_names.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "collectors/roce/ethtool_stats.h"

namespace rnic {
namespace {

const std::string kFixtures = RNIC_FIXTURES_DIR "/roce";

TEST(EthtoolNamesTest, PerPriorityNamesParseExactly) {
  auto s = ClassifyEthtoolName("rx_prio3_pause");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, RoceStatKind::kPauseFrames);
  EXPECT_EQ(s->priority, 3);
  EXPECT_EQ(s->direction, "rx");
  s = ClassifyEthtoolName("tx_prio0_pause_duration");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, RoceStatKind::kPauseDurationMicros);
  EXPECT_EQ(s->priority, 0);
  EXPECT_EQ(s->direction, "tx");
  s = ClassifyEthtoolName("rx_prio7_pause_transition");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, RoceStatKind::kPauseTransitions);
  EXPECT_EQ(s->direction, "");
  s = ClassifyEthtoolName("rx_prio5_marked");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, RoceStatKind::kPrioEcnMarked);
  EXPECT_EQ(s->priority, 5);
  EXPECT_EQ(ClassifyEthtoolName("rx_prio2_buf_discard")->kind,
            RoceStatKind::kPrioBufferDiscards);
  EXPECT_EQ(ClassifyEthtoolName("rx_prio2_cong_discard")->kind,
            RoceStatKind::kPrioCongestionDiscards);
  EXPECT_EQ(ClassifyEthtoolName("rx_prio2_discards")->kind,
            RoceStatKind::kPrioDiscards);
}

TEST(EthtoolNamesTest, NearMissesAreRejected) {
  for (const char* n : {"tx_prio0_pause_",
                        "tx_prio0_paus",
                        "rx_prio8_pause",
                        "rx_prio_pause",
                        "rx_prio10_pause",
                        "rx_prio3pause",
                        "tx_prio3_pause_transition",
                        "tx_prio3_discards",
                        "tx_prio3_marked",
                        "rx_global_pause",
                        "rx_global_pause_duration",
                        "rx_ecn_mark",
                        "rx0_ecn_mark",
                        "rx_prio3_bytes",
                        "rx_prio3_packets",
                        "outbound_pci_stalled",
                        "outbound_pci_stalled_rd_event",
                        "rx_discards_phy_",
                        "rx_pause_ctrl_phy",
                        "xrx_prio3_pause",
                        " rx_prio3_pause",
                        "",
                        "rx_prio3_pause\n"}) {
    EXPECT_FALSE(ClassifyEthtoolName(n)) << "'" << n << "'";
  }
  // Pitfall 10: a prefix of a longer name is a different counter.
  EXPECT_EQ(ClassifyEthtoolName("outbound_pci_stalled_rd")->kind,
            RoceStatKind::kPciStalledReadsPercent);
  EXPECT_EQ(ClassifyEthtoolName("outbound_pci_stalled_rd_events")->kind,
            RoceStatKind::kPciStalledReadSeconds);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Classifies every name of a captured mlx5 `ethtool -S` table: exactly the
// documented names are picked, each with its own value (not a neighbour's).
TEST(EthtoolNamesTest, Mlx5CaptureSelectsExactlyTheDocumentedNames) {
  auto snap = ParseEthtoolSOutput(Slurp(kFixtures + "/ethtool/enp129s0f0np0"));
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  std::map<std::string, std::uint64_t> picked;
  for (std::size_t i = 0; i < snap->names->size(); ++i) {
    if (ClassifyEthtoolName((*snap->names)[i])) {
      picked[(*snap->names)[i]] = snap->values[i];
    }
  }
  // 8 priorities x (discards, buf_discard, cong_discard, marked) + 5 pause
  // names of priority 3 + 2 storm + 3 discard/buffer + 5 PCIe.
  EXPECT_EQ(picked.size(), 32u + 5 + 2 + 3 + 5);
  EXPECT_EQ(picked.at("tx_prio3_pause"), 4410u);
  EXPECT_EQ(picked.at("tx_prio3_pause_duration"), 2500000u);
  EXPECT_EQ(picked.at("rx_prio3_pause"), 1520u);
  EXPECT_EQ(picked.at("rx_prio3_pause_duration"), 98765u);
  EXPECT_EQ(picked.at("rx_prio3_pause_transition"), 760u);
  EXPECT_EQ(picked.at("outbound_pci_stalled_rd"), 12u);
  EXPECT_EQ(picked.at("outbound_pci_stalled_rd_events"), 3u);
  EXPECT_EQ(picked.count("rx_prio0_pause"), 0u);  // PFC off on priority 0
  EXPECT_EQ(picked.count("rx_ecn_mark"), 0u);
  EXPECT_EQ(picked.count("tx_pause_ctrl_phy"), 0u);
}

TEST(EthtoolNamesTest, VirtioNetHasNone) {
  auto snap = ParseEthtoolSOutput(Slurp(kFixtures + "/ethtool/eth0"));
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->names->size(), 14u);
  for (const auto& n : *snap->names) EXPECT_FALSE(ClassifyEthtoolName(n)) << n;
}

}  // namespace
}  // namespace rnic
