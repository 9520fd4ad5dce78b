#include "collectors/gpu/gpu_collector.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "tests/unit/family_check.h"
#include "tests/unit/health/scrape_util.h"

namespace rnic {
namespace {

using testing::CountOf;
using testing::ScrapeFlat;
using testing::ValueOf;

std::unique_ptr<Collector> On(const std::string& tree,
                              std::vector<std::string> rails = {},
                              bool pci_config = false) {
  GpuCollectorOptions o;
  o.sysfs = std::string(RNIC_FIXTURES_DIR "/gpu/") + tree + "/sys";
  o.procfs = std::string(RNIC_FIXTURES_DIR "/gpu/") + tree + "/proc";
  o.rails = std::move(rails);
  o.pci_config = pci_config;
  return MakeGpuCollector(std::move(o));
}

// The relation label of the (device, gpu) pair, "" when there is none.
std::string RelationOf(const std::vector<testing::FlatSample>& s,
                       const std::string& device, const std::string& gpu) {
  std::string found;
  for (const auto& x : s) {
    if (x.family == "rnic_gpu_topology_info" &&
        x.labels.at("device") == device && x.labels.at("gpu") == gpu) {
      EXPECT_TRUE(found.empty()) << device << "/" << gpu << " twice";
      found = x.labels.at("relation");
    }
  }
  return found;
}

TEST(GpuCollectorTest, DgxLikeHost) {
  auto c = On("dgx");
  std::vector<prometheus::MetricFamily> fams;
  const auto s = ScrapeFlat(*c, &fams);
  testing::ExpectDeclared(MakeGpuCollectorSpec(), fams);
  // Eight H100s; neither the BMC's VGA nor the NVSwitch is a GPU.
  EXPECT_EQ(CountOf(s, "rnic_gpu_info"), 8);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_info",
                    {{"gpu", "0"},
                     {"pci_bus_id", "00000000:1A:00.0"},
                     {"pci_address", "0000:1a:00.0"},
                     {"gpu_vendor", "nvidia"},
                     {"numa_node", "0"}}),
            1);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_info",
                    {{"gpu", "7"},
                     {"pci_bus_id", "00000000:BE:00.0"},
                     {"numa_node", "1"}}),
            1);
  // Ten NICs by eight GPUs.
  EXPECT_EQ(CountOf(s, "rnic_gpu_topology_info"), 80);
  EXPECT_EQ(RelationOf(s, "mlx5_0", "0"), "PIX");   // same leaf switch
  EXPECT_EQ(RelationOf(s, "mlx5_1", "0"), "PXB");   // other leaf, same top
  EXPECT_EQ(RelationOf(s, "mlx5_8", "0"), "PHB");   // root port beside it
  EXPECT_EQ(RelationOf(s, "mlx5_2", "0"), "NODE");  // other host bridge
  EXPECT_EQ(RelationOf(s, "mlx5_4", "0"), "SYS");   // other socket
  EXPECT_EQ(RelationOf(s, "mlx5_7", "7"), "PIX");
  // Each GPU has one nearest NIC: its leaf switch's.
  std::map<std::string, std::string> nearest;
  for (const auto& x : s) {
    if (x.family != "rnic_gpu_topology_info") continue;
    if (x.labels.at("nearest") != "true") continue;
    EXPECT_TRUE(
        nearest.emplace(x.labels.at("gpu"), x.labels.at("device")).second);
  }
  ASSERT_EQ(nearest.size(), 8u);
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(nearest[std::to_string(g)], "mlx5_" + std::to_string(g));
  }
  // Rails by PCI address count the storage NICs too (mlx5_8 sits between
  // mlx5_1 and mlx5_2): what --collector.gpu.rails is for.
  EXPECT_EQ(ValueOf(s, "rnic_gpu_topology_info",
                    {{"device", "mlx5_8"}, {"gpu", "0"}, {"rail", "2"}}),
            1);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_topology_info",
                    {{"device", "mlx5_2"}, {"gpu", "0"}, {"rail", "3"}}),
            1);
}

TEST(GpuCollectorTest, ConfiguredRails) {
  auto c = On("dgx", {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4",
                      "mlx5_5", "mlx5_6", "mlx5_7"});
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_topology_info",
                    {{"device", "mlx5_2"}, {"gpu", "2"}, {"rail", "2"}}),
            1);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_topology_info",
                    {{"device", "mlx5_8"}, {"gpu", "0"}, {"rail", ""}}),
            1);
}

TEST(GpuCollectorTest, OneSharedSwitch) {
  auto c = On("shared");
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(CountOf(s, "rnic_gpu_info"), 4);
  // A single-socket host: the kernel prints -1, the label is empty.
  EXPECT_EQ(ValueOf(s, "rnic_gpu_info",
                    {{"gpu", "2"},
                     {"pci_bus_id", "00000000:06:00.0"},
                     {"numa_node", ""}}),
            1);
  // The L40S bound to vfio-pci is not NVML's: no index, and the GPUs after
  // it close ranks (0000:05:00.0 is GPU 1).
  EXPECT_EQ(ValueOf(s, "rnic_gpu_info",
                    {{"gpu", ""}, {"pci_bus_id", "00000000:04:00.0"}}),
            1);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_info",
                    {{"gpu", "1"}, {"pci_bus_id", "00000000:05:00.0"}}),
            1);
  EXPECT_EQ(CountOf(s, "rnic_gpu_topology_info"), 8);
  for (const auto& x : s) {
    if (x.family != "rnic_gpu_topology_info") continue;
    EXPECT_EQ(x.labels.at("relation"), "PIX") << x.labels.at("device");
    EXPECT_EQ(x.labels.at("nearest"), "true");  // ties: both ports
  }
  // The two ports of one adapter are two rails.
  EXPECT_EQ(ValueOf(s, "rnic_gpu_topology_info",
                    {{"device", "mlx5_1"}, {"gpu", "0"}, {"rail", "1"}}),
            1);
}

TEST(GpuCollectorTest, NoGpuNoSeries) {
  auto c = On("nogpu");
  const auto s = ScrapeFlat(*c);
  EXPECT_TRUE(s.empty());
}

TEST(GpuCollectorTest, AmdInstinct) {
  auto c = On("amd");
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(ValueOf(s, "rnic_gpu_info",
                    {{"gpu", "1"},
                     {"gpu_vendor", "amd"},
                     {"pci_address", "0000:88:00.0"}}),
            1);
  EXPECT_EQ(RelationOf(s, "mlx5_0", "0"), "PIX");
  EXPECT_EQ(RelationOf(s, "mlx5_0", "1"), "SYS");
  EXPECT_EQ(RelationOf(s, "mlx5_1", "1"), "PIX");
}

using StateReason = std::pair<std::string, std::string>;

// state and reason of a check, "" when absent.
StateReason Check(const std::vector<testing::FlatSample>& s,
                  const std::string& check, const std::string& device = "") {
  StateReason found;
  for (const auto& x : s) {
    if (x.family == "rnic_gpudirect_check_state" &&
        x.labels.at("check") == check && x.labels.at("device") == device) {
      EXPECT_TRUE(found.first.empty()) << check << "/" << device << " twice";
      found = {x.labels.at("state"), x.labels.at("reason")};
    }
  }
  return found;
}

TEST(GpuCollectorTest, DgxReadyButOneRedirectingPort) {
  auto c = On("dgx", {}, /*pci_config=*/true);
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(Check(s, "peer_memory"),
            StateReason("ok", "nvidia_peermem loaded"));
  for (int i = 0; i < 10; ++i) {
    const std::string dev = "mlx5_" + std::to_string(i);
    EXPECT_EQ(Check(s, "iommu", dev).first, "ok") << dev;
    const auto acs = Check(s, "acs", dev);
    EXPECT_EQ(acs.first, i == 7 || i == 5 ? "failed" : "ok")
        << dev << ": " << acs.second;
  }
  EXPECT_EQ(Check(s, "acs", "mlx5_7").second,
            "ACS P2P redirect on 0000:bd:01.0 to GPU 7");
  // Redirect with Direct Translated P2P: direct for mlx5_3 (ATS on), not
  // for mlx5_5 (ATS off).
  EXPECT_EQ(Check(s, "acs", "mlx5_3").second,
            "ACS P2P redirect on 0000:3d:01.0 with Direct Translated P2P and "
            "ATS enabled on the device: translated requests to GPU 3 go "
            "direct");
  EXPECT_EQ(Check(s, "acs", "mlx5_5").second,
            "ACS P2P redirect on 0000:9d:01.0 to GPU 5 (Direct Translated P2P "
            "on 0000:9d:01.0, but ATS off on the device)");
  EXPECT_EQ(Check(s, "acs", "mlx5_0").second,
            "no ACS P2P redirect on the 2 bridges to GPU 0");
  // The storage NIC reaches its nearest GPU through the host bridge.
  EXPECT_EQ(Check(s, "acs", "mlx5_8").second,
            "no PCIe switch between the device and its nearest GPU 0 (PHB)");
  // ATS: enabled on mlx5_3 only, and not needed under passthrough.
  EXPECT_EQ(Check(s, "ats", "mlx5_3"), StateReason("ok", "ATS enabled"));
  EXPECT_EQ(
      Check(s, "ats", "mlx5_0"),
      StateReason("ok", "ATS off; not needed: identity domain (passthrough)"));
  EXPECT_EQ(Check(s, "ats", "mlx5_9").first, "ok");
  // DMA-BUF registration: kernel, drm loaded, mlx5_core with mlx5_ib.
  EXPECT_EQ(Check(s, "dma_buf", "mlx5_0"),
            StateReason("ok", "mlx5_ib registers DMA-BUF memory (Linux 5.15)"));
  // Without the opt-in, no configuration space is read.
  auto plain = On("dgx");
  const auto p = ScrapeFlat(*plain);
  EXPECT_EQ(Check(p, "acs", "mlx5_7").first, "");
  EXPECT_EQ(Check(p, "ats", "mlx5_3").first, "");
  EXPECT_EQ(Check(p, "iommu", "mlx5_3").first, "ok");
}

TEST(GpuCollectorTest, SharedSwitchNotReady) {
  auto c = On("shared", {}, /*pci_config=*/true);
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(
      Check(s, "peer_memory"),
      StateReason("failed",
                  "nvidia_peermem not loaded; DMA-BUF: proprietary NVIDIA "
                  "kernel module (DMA-BUF needs the open one)"));
  EXPECT_EQ(Check(s, "iommu", "mlx5_0").first, "failed");
  EXPECT_NE(Check(s, "iommu", "mlx5_0").second.find("DMA-FQ"),
            std::string::npos);
  // 64 bytes of config space: the redirect bits cannot be seen.
  const auto acs = Check(s, "acs", "mlx5_1");
  EXPECT_EQ(acs.first, "unknown");
  EXPECT_NE(acs.second.find("CAP_SYS_ADMIN"), std::string::npos) << acs.second;
  // ATS cannot be seen either: translation stays a failure.
  EXPECT_EQ(Check(s, "ats", "mlx5_0").first, "unknown");
  EXPECT_EQ(Check(s, "iommu", "mlx5_1").first, "failed");
  EXPECT_EQ(Check(s, "dma_buf", "mlx5_1"),
            StateReason("failed", "mlx5_ib not loaded"));
}

TEST(GpuCollectorTest, AmdDmaBufWithoutIommu) {
  auto c = On("amd");
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(Check(s, "peer_memory"),
            StateReason("ok", "DMA-BUF: Linux 6.8 and amdgpu"));
  EXPECT_EQ(Check(s, "iommu", "mlx5_1"), StateReason("ok", "no IOMMU"));
  // No driver bound in this tree: nothing says DMA-BUF works, nor that it
  // does not.
  EXPECT_EQ(Check(s, "dma_buf", "mlx5_1").first, "unknown");
}

TEST(GpuCollectorTest, RailOptionIsChecked) {
  const CollectorSpec spec = MakeGpuCollectorSpec();
  auto opts = spec.ParseOptions({{"rails", "mlx5_0,mlx5_0"}});
  ASSERT_TRUE(opts.ok());
  CollectorArgs args;
  args.options = std::move(opts).value();
  args.paths.sysfs = RNIC_FIXTURES_DIR "/gpu/dgx/sys";
  auto made = spec.factory(args);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().message.find("named twice"), std::string::npos);
}

}  // namespace
}  // namespace rnic
