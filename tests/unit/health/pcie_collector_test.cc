#include "collectors/health/pcie_collector.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "collectors/health/carrier_collector.h"
#include "tests/unit/family_check.h"
#include "tests/unit/health/scrape_util.h"

namespace rnic {
namespace {

namespace fs = std::filesystem;
using testing::CountOf;
using testing::ScrapeFlat;
using testing::ValueOf;

const std::string kSys = RNIC_FIXTURES_DIR "/health/sys";

TEST(PcieCollectorTest, PfLinkAtItsMaximum) {
  auto c = MakePcieCollector(kSys);
  std::vector<prometheus::MetricFamily> fams;
  const auto s = ScrapeFlat(*c, &fams);
  testing::ExpectDeclared(MakePcieCollectorSpec(), fams);
  const std::map<std::string, std::string> pf = {
      {"device", "mlx5_0"}, {"pci_address", "0000:3b:00.0"}};
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_speed_transfers_per_second", pf), 16e9);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_max_speed_transfers_per_second", pf),
            16e9);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_width_lanes", pf), 16);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_max_width_lanes", pf), 16);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_downtrained", pf), 0);
  // A PF has no pf label.
  for (const auto& x : s) {
    if (x.labels.at("device") == "mlx5_0") {
      EXPECT_FALSE(x.labels.contains("pf")) << x.family;
    }
  }
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_speed_transfers_per_second",
                    {{"device", "hfi1_0"}}),
            8e9);
}

TEST(PcieCollectorTest, AerCountersByTypeWithoutTotals) {
  auto c = MakePcieCollector(kSys);
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(
      ValueOf(
          s, "rnic_pcie_aer_errors_total",
          {{"device", "mlx5_0"}, {"class", "correctable"}, {"error", "RxErr"}}),
      12);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_aer_errors_total",
                    {{"device", "mlx5_0"},
                     {"class", "correctable"},
                     {"error", "BadTLP"}}),
            3);
  EXPECT_EQ(
      ValueOf(
          s, "rnic_pcie_aer_errors_total",
          {{"device", "irdma0"}, {"class", "nonfatal"}, {"error", "CmpltTO"}}),
      2);
  EXPECT_EQ(
      ValueOf(s, "rnic_pcie_aer_errors_total",
              {{"device", "irdma0"}, {"class", "fatal"}, {"error", "CmpltTO"}}),
      0);
  for (const auto& x : s) {
    if (x.family != "rnic_pcie_aer_errors_total") continue;
    EXPECT_NE(x.labels.at("error").rfind("TOTAL_", 0), 0u);
  }
  // 8 correctable + 18 non-fatal + 18 fatal names, on three functions.
  EXPECT_EQ(CountOf(s, "rnic_pcie_aer_errors_total"), 3 * (8 + 18 + 18));
}

TEST(PcieCollectorTest, DowntrainedFunction) {
  auto c = MakePcieCollector(kSys);
  const auto s = ScrapeFlat(*c);
  const std::map<std::string, std::string> e810 = {{"device", "irdma0"}};
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_downtrained", e810), 1);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_speed_transfers_per_second", e810), 8e9);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_max_speed_transfers_per_second", e810),
            16e9);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_width_lanes", e810), 8);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_max_width_lanes", e810), 16);
}

TEST(PcieCollectorTest, VfNamesItsPfAndUnknownLinkGivesNoSeries) {
  auto c = MakePcieCollector(kSys);
  const auto s = ScrapeFlat(*c);
  std::set<std::string> families;
  for (const auto& x : s) {
    if (x.labels.at("device") != "mlx5_2") continue;
    families.insert(x.family);
    EXPECT_EQ(x.labels.at("pf"), "0000:3b:00.0") << x.family;
    EXPECT_EQ(x.labels.at("pci_address"), "0000:3b:00.2") << x.family;
  }
  // "Unknown" speed and width 0: no current series, so no downtrained flag
  // either; the maximum is known. A VF has no AER files.
  EXPECT_EQ(families, (std::set<std::string>{
                          "rnic_pcie_link_max_speed_transfers_per_second",
                          "rnic_pcie_link_max_width_lanes"}));
  EXPECT_EQ(
      ValueOf(s, "rnic_pcie_link_max_width_lanes", {{"device", "mlx5_2"}}), 16);
}

// A scratch copy of one function whose files the test rewrites.
class PcieScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("pcie_scratch_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::copy(RNIC_FIXTURES_DIR "/health/sys", root_ / "sys",
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    fn_ = root_ / "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0";
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& file, const std::string& text) {
    std::ofstream(fn_ / file) << text;
  }
  fs::path root_;
  fs::path fn_;
};

TEST_F(PcieScratchTest, ValuesAreReadAtEveryScrape) {
  auto c = MakePcieCollector((root_ / "sys").string());
  const std::map<std::string, std::string> pf = {{"device", "mlx5_0"}};
  EXPECT_EQ(ValueOf(ScrapeFlat(*c), "rnic_pcie_link_downtrained", pf), 0);
  Write("current_link_width", "4\n");
  Write("aer_dev_fatal", "CmpltTO 0\nMalfTLP 1\nTOTAL_ERR_FATAL 1\n");
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_downtrained", pf), 1);
  EXPECT_EQ(
      ValueOf(s, "rnic_pcie_aer_errors_total",
              {{"device", "mlx5_0"}, {"class", "fatal"}, {"error", "MalfTLP"}}),
      1);
}

TEST_F(PcieScratchTest, SoftRoceOnAnRdmaFunctionLeavesItToThatDevice) {
  // rxe0 on mlx5_0's netdev: the function is reported once, as mlx5_0's.
  const fs::path sys = root_ / "sys";
  const fs::path rxe = sys / "devices/virtual/infiniband/rxe0";
  fs::create_directories(rxe / "ports/1");
  std::ofstream(rxe / "parent") << "ens1f0np0\n";
  std::ofstream(rxe / "ports/1/link_layer") << "Ethernet\n";
  fs::create_directory_symlink("../../devices/virtual/infiniband/rxe0",
                               sys / "class/infiniband/rxe0");
  host::HostModel model(host::HostModel::Options{sys.string()});
  const auto snap = model.Refresh();
  ASSERT_NE(snap->Find("rxe0"), nullptr);
  ASSERT_EQ(snap->Find("rxe0")->parent_pci_address, "0000:3b:00.0");
  auto c = MakePcieCollector(sys.string());
  const auto s = ScrapeFlat(*c);
  EXPECT_FALSE(ValueOf(s, "rnic_pcie_link_width_lanes", {{"device", "rxe0"}}));
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_width_lanes",
                    {{"pci_address", "0000:3b:00.0"}}),
            16);
}

TEST_F(PcieScratchTest, MalformedAndMissingFilesCostOnlyTheirSeries) {
  Write("current_link_speed", "fast\n");
  fs::remove(fn_ / "max_link_width");
  Write("aer_dev_nonfatal", "garbage\n");
  auto c = MakePcieCollector((root_ / "sys").string());
  const auto s = ScrapeFlat(*c);
  const std::map<std::string, std::string> pf = {{"device", "mlx5_0"}};
  EXPECT_FALSE(ValueOf(s, "rnic_pcie_link_speed_transfers_per_second", pf));
  EXPECT_FALSE(ValueOf(s, "rnic_pcie_link_max_width_lanes", pf));
  EXPECT_FALSE(ValueOf(s, "rnic_pcie_link_downtrained", pf));
  EXPECT_EQ(ValueOf(s, "rnic_pcie_link_width_lanes", pf), 16);
  EXPECT_EQ(ValueOf(s, "rnic_pcie_aer_errors_total",
                    {{"device", "mlx5_0"}, {"error", "RxErr"}}),
            12);
  EXPECT_FALSE(ValueOf(
      s, "rnic_pcie_aer_errors_total",
      {{"device", "mlx5_0"}, {"class", "nonfatal"}, {"error", "CmpltTO"}}));
}

TEST_F(PcieScratchTest, AFileTheFunctionLacksIsNotLookedForAtEveryScrape) {
  // A function without AER (or without a PCIe capability) has no such files
  // for as long as it is registered: one failed open, not one per scrape.
  fs::remove(fn_ / "aer_dev_fatal");
  auto c = MakePcieCollector((root_ / "sys").string());
  const std::map<std::string, std::string> fatal = {
      {"device", "mlx5_0"}, {"class", "fatal"}, {"error", "MalfTLP"}};
  EXPECT_FALSE(ValueOf(ScrapeFlat(*c), "rnic_pcie_aer_errors_total", fatal));
  Write("aer_dev_fatal", "MalfTLP 2\nTOTAL_ERR_FATAL 2\n");
  const auto again = ScrapeFlat(*c);
  EXPECT_FALSE(ValueOf(again, "rnic_pcie_aer_errors_total", fatal));
  // Files it has are still read at every scrape.
  EXPECT_EQ(
      ValueOf(again, "rnic_pcie_link_width_lanes", {{"device", "mlx5_0"}}), 16);
  // A new registration (here: a new collector's first sight) looks again.
  auto fresh = MakePcieCollector((root_ / "sys").string());
  EXPECT_EQ(ValueOf(ScrapeFlat(*fresh), "rnic_pcie_aer_errors_total", fatal),
            2);
}

TEST(CarrierCollectorTest, CountsPerNetdevWhereTheKernelHasThem) {
  auto c = MakeCarrierCollector(kSys);
  std::vector<prometheus::MetricFamily> fams;
  const auto s = ScrapeFlat(*c, &fams);
  testing::ExpectDeclared(MakeCarrierCollectorSpec(), fams);
  const std::map<std::string, std::string> e810 = {
      {"device", "irdma0"}, {"port", "1"}, {"netdev", "ens801f0"}};
  EXPECT_EQ(ValueOf(s, "rnic_netdev_carrier_changes_total", e810), 14);
  EXPECT_EQ(ValueOf(s, "rnic_netdev_carrier_up_total", e810), 7);
  EXPECT_EQ(ValueOf(s, "rnic_netdev_carrier_down_total", e810), 7);
  EXPECT_EQ(ValueOf(s, "rnic_netdev_carrier_changes_total",
                    {{"netdev", "ens1f0np0"}}),
            2);
  // ens1f0v0: carrier_changes only (a kernel before 4.16).
  const std::map<std::string, std::string> vf = {{"netdev", "ens1f0v0"}};
  EXPECT_EQ(ValueOf(s, "rnic_netdev_carrier_changes_total", vf), 1);
  EXPECT_FALSE(ValueOf(s, "rnic_netdev_carrier_up_total", vf));
  // hfi1_0's InfiniBand port has no netdev.
  EXPECT_FALSE(
      ValueOf(s, "rnic_netdev_carrier_changes_total", {{"device", "hfi1_0"}}));
  EXPECT_EQ(CountOf(s, "rnic_netdev_carrier_changes_total"), 3);
}

}  // namespace
}  // namespace rnic
