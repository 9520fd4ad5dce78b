#include "collectors/host/gpudirect.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace rnic::gpu {
namespace {

namespace fs = std::filesystem;

class GpuDirectFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("rnic_gpudirect_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "sys");
    fs::create_directories(root_ / "proc");
    paths_ = {(root_ / "sys").string(), (root_ / "proc").string()};
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  fs::path root_;
  ReadinessPaths paths_;
};

std::vector<Gpu> Nvidia() {
  Gpu g;
  g.vendor = GpuVendor::kNvidia;
  return {g};
}

TEST(GpuDirectTest, KernelRelease) {
  EXPECT_EQ(ParseKernelRelease("6.8.0-45-generic"), std::pair(6, 8));
  EXPECT_EQ(ParseKernelRelease("5.12"), std::pair(5, 12));
  EXPECT_FALSE(ParseKernelRelease("linux"));
  EXPECT_FALSE(ParseKernelRelease("6"));
}

TEST(GpuDirectTest, AcsCapabilityWalk) {
  std::string cfg(4096, '\0');
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) cfg[at + i] = static_cast<char>(v >> (8 * i));
  };
  EXPECT_FALSE(FindAcs(cfg));  // no extended capabilities
  put32(0x100, 0x0001 | (2u << 16) | (0x148u << 20));  // AER -> 0x148
  EXPECT_FALSE(FindAcs(cfg));
  put32(0x148, 0x000d | (1u << 16));  // ACS, last
  put32(0x14c, 0x0000005f);           // capability 0x5f, control 0
  auto acs = FindAcs(cfg);
  ASSERT_TRUE(acs);
  EXPECT_FALSE(acs->redirects());
  put32(0x14c, 0x0004005f);  // P2P Request Redirect
  EXPECT_TRUE(FindAcs(cfg)->redirects());
  EXPECT_FALSE(FindAcs(cfg)->direct_translated());
  put32(0x14c, 0x004c005f);  // both redirects and Direct Translated P2P
  EXPECT_TRUE(FindAcs(cfg)->redirects());
  EXPECT_TRUE(FindAcs(cfg)->direct_translated());
  put32(0x14c, 0x0008005f);  // P2P Completion Redirect
  EXPECT_TRUE(FindAcs(cfg)->redirects());
  put32(0x14c, 0x0011005f);  // source validation, upstream forwarding
  EXPECT_FALSE(FindAcs(cfg)->redirects());
  EXPECT_FALSE(FindAcs(cfg)->direct_translated());
  EXPECT_EQ(FindExtCap(cfg, 0x000d), 0x148u);
  EXPECT_EQ(FindExtCap(cfg, 0x0001), 0x100u);
  EXPECT_FALSE(FindExtCap(cfg, 0x000f));
  // A capability pointing at itself ends the walk.
  put32(0x100, 0x0001 | (0x100u << 20));
  EXPECT_FALSE(FindAcs(cfg));
}

TEST_F(GpuDirectFsTest, PeerMemoryUnknownWithoutModuleDirectory) {
  const auto r = CheckPeerMemory(paths_, Nvidia());
  EXPECT_EQ(r.state, CheckState::kUnknown) << r.reason;
  EXPECT_EQ(r.check, "peer_memory");
}

TEST_F(GpuDirectFsTest, PeerMemoryByDmaBufWithTheOpenModule) {
  Write("sys/module/nvidia/initstate", "live\n");
  Write("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
  Write("proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
        "560.35.03\n");
  auto r = CheckPeerMemory(paths_, Nvidia());
  EXPECT_EQ(r.state, CheckState::kOk) << r.reason;
  EXPECT_EQ(r.reason, "DMA-BUF: Linux 6.8 and the NVIDIA open kernel module");
  // The same driver on a kernel without RDMA DMA-BUF.
  Write("proc/sys/kernel/osrelease", "5.4.0-200-generic\n");
  r = CheckPeerMemory(paths_, Nvidia());
  EXPECT_EQ(r.state, CheckState::kFailed);
  EXPECT_EQ(r.reason,
            "nvidia_peermem not loaded; DMA-BUF: Linux 5.4 has no RDMA "
            "DMA-BUF (5.12+)");
  // A module still loading is not ready.
  Write("sys/module/nvidia_peermem/initstate", "coming\n");
  r = CheckPeerMemory(paths_, Nvidia());
  EXPECT_EQ(r.state, CheckState::kFailed);
  EXPECT_EQ(r.reason.rfind("nvidia_peermem is coming;", 0), 0u) << r.reason;
  // The legacy module counts.
  Write("sys/module/nv_peer_mem/initstate", "live\n");
  r = CheckPeerMemory(paths_, Nvidia());
  EXPECT_EQ(r.state, CheckState::kOk);
  EXPECT_EQ(r.reason, "nv_peer_mem loaded");
}

TEST_F(GpuDirectFsTest, IommuOnAnOldKernelFromTheCommandLine) {
  fs::create_directories(root_ /
                         "sys/bus/pci/devices/0000:3b:00.0/iommu_group");
  Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro intel_iommu=on\n");
  auto r = CheckIommu(paths_, "mlx5_0", "0000:3b:00.0");
  EXPECT_EQ(r.state, CheckState::kUnknown);
  Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt\n");
  r = CheckIommu(paths_, "mlx5_0", "0000:3b:00.0");
  EXPECT_EQ(r.state, CheckState::kOk);
  EXPECT_EQ(r.device, "mlx5_0");
  // "iommu=pt" only as a whole word.
  Write("proc/cmdline", "ro amd_iommu=ptx\n");
  EXPECT_EQ(CheckIommu(paths_, "mlx5_0", "0000:3b:00.0").state,
            CheckState::kUnknown);
  // Unreadable command line: unknown, never ok.
  fs::remove(root_ / "proc/cmdline");
  EXPECT_EQ(CheckIommu(paths_, "mlx5_0", "0000:3b:00.0").state,
            CheckState::kUnknown);
}

TEST_F(GpuDirectFsTest, TranslationWithAts) {
  Write("sys/bus/pci/devices/0000:3b:00.0/iommu_group/type", "DMA-FQ\n");
  const auto base = CheckIommu(paths_, "mlx5_0", "0000:3b:00.0");
  EXPECT_EQ(base.state, CheckState::kFailed);
  EXPECT_EQ(base.reason, "DMA translation (iommu_group type DMA-FQ)");
  // The function caches translations itself: peer traffic is not remapped
  // on the way.
  const auto with_ats = CheckIommu(paths_, "mlx5_0", "0000:3b:00.0", true);
  EXPECT_EQ(with_ats.state, CheckState::kOk);
  EXPECT_EQ(CheckIommu(paths_, "mlx5_0", "0000:3b:00.0", false).state,
            CheckState::kFailed);
  // The ats check: what ATS is worth under each IOMMU result.
  EXPECT_EQ(CheckAts("mlx5_0", false, "", base).state, CheckState::kFailed);
  EXPECT_EQ(CheckAts("mlx5_0", false, "", base).reason,
            "ATS off under DMA translation (iommu_group type DMA-FQ)");
  EXPECT_EQ(CheckAts("mlx5_0", true, "", base).state, CheckState::kOk);
  EXPECT_EQ(CheckAts("mlx5_0", std::nullopt, "no config", base).state,
            CheckState::kUnknown);
  CheckResult unknown{"iommu", "mlx5_0", CheckState::kUnknown, "why"};
  EXPECT_EQ(CheckAts("mlx5_0", false, "", unknown).state, CheckState::kUnknown);
}

TEST_F(GpuDirectFsTest, IommuUnitsButNoGroupIsUnknown) {
  fs::create_directories(root_ / "sys/bus/pci/devices/0000:3b:00.0");
  fs::create_directories(root_ / "sys/class/iommu/dmar0");
  EXPECT_EQ(CheckIommu(paths_, "mlx5_0", "0000:3b:00.0").state,
            CheckState::kUnknown);
  fs::remove_all(root_ / "sys/class/iommu/dmar0");
  EXPECT_EQ(CheckIommu(paths_, "mlx5_0", "0000:3b:00.0").state,
            CheckState::kOk);
}

}  // namespace
}  // namespace rnic::gpu
