#include "collectors/host/host_facts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "collectors/host/host_model.h"

namespace rnic {
namespace {

const std::string kSys = RNIC_FIXTURES_DIR "/roce/sys";
const std::string kProc = RNIC_FIXTURES_DIR "/roce/proc";

TEST(HostFactsTest, MtuAndNumaNode) {
  EXPECT_EQ(*ReadNetdevMtu(kSys, "enp129s0f0np0"), 9000);
  EXPECT_EQ(*ReadNetdevMtu(kSys, "eth0"), 1500);
  auto gone = ReadNetdevMtu(kSys, "nosuch0");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().errno_value, ENOENT);
  // NUMA nodes and IRQs come from the host model.
  host::HostModel m({kSys});
  const auto snap = m.Refresh();
  ASSERT_TRUE(snap->Find("mlx5_0")->numa);
  EXPECT_EQ(*snap->Find("mlx5_0")->numa, 1);
  EXPECT_EQ(*snap->Find("mlx5_2")->numa, -1);
  EXPECT_FALSE(snap->Find("rxe0")->numa);
}

TEST(HostFactsTest, IrqsOutsideTheNumaNodeAreCounted) {
  host::HostModel m({kSys});
  const auto snap = m.Refresh();
  const std::vector<int>* irqs = &snap->Find("mlx5_0")->irqs;
  EXPECT_TRUE(snap->Find("mlx5_0")->irqs_known);
  EXPECT_FALSE(snap->Find("rxe0")->irqs_known);
  EXPECT_EQ(*irqs, (std::vector<int>{120, 121, 122, 123, 124, 125, 126, 127}));
  auto cpus = ReadNodeCpus(kSys, 1);
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus->size(), 16u);
  IrqPlacement p = CheckIrqPlacement(kProc, *irqs, *cpus);
  EXPECT_EQ(p.irqs, 8);
  EXPECT_EQ(p.checked, 8);
  EXPECT_EQ(p.off_node, 2);  // 126 (0-31) and 127 (3)
  EXPECT_TRUE(p.errors.empty());
  // Against node 0 only IRQ 127 (CPU 3) lies inside.
  p = CheckIrqPlacement(kProc, *irqs, *ReadNodeCpus(kSys, 0));
  EXPECT_EQ(p.off_node, 7);
  // An IRQ that vanished costs only itself.
  p = CheckIrqPlacement(kProc, {120, 999}, *cpus);
  EXPECT_EQ(p.irqs, 2);
  EXPECT_EQ(p.checked, 1);
  EXPECT_EQ(p.errors.size(), 1u);
}

TEST(HostFactsTest, RoceEcnSwitches) {
  auto ecn = ReadRoceEcn(kSys, "enp129s0f0np0");
  ASSERT_TRUE(ecn.ok()) << ecn.error().message;
  ASSERT_EQ(ecn->size(), 16u);
  int enabled = 0;
  for (const auto& e : *ecn) {
    if (e.enabled) {
      ++enabled;
      EXPECT_EQ(e.priority, 3);
    }
  }
  EXPECT_EQ(enabled, 2);  // np and rp
  auto none = ReadRoceEcn(kSys, "eth0");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().errno_value, ENOENT);
}

TEST(HostFactsTest, NodeCpusReadOncePerNodeUntilCleared) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) /
                        ("node_cpu_cache_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "devices/system/node/node0");
  std::ofstream(root / "devices/system/node/node0/cpulist") << "0-3\n";
  NodeCpuCache cache(root.string());
  auto first = cache.Get(0);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(**first, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(cache.Get(1).ok());  // no such node
  // Cached until the host model changes.
  std::ofstream(root / "devices/system/node/node0/cpulist") << "8\n";
  EXPECT_EQ(**cache.Get(0), (std::vector<int>{0, 1, 2, 3}));
  cache.Clear();
  EXPECT_EQ(**cache.Get(0), (std::vector<int>{8}));
  fs::remove_all(root);
}

}  // namespace
}  // namespace rnic
