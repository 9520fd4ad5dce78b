// CMIS modules with more than 8 lanes: lane pages 11h of banks 1-3 (lanes
// 9-16, 17-24, 25-32), advertised in page 01h byte 142 (CMIS 5.2 Table
// 8-41). Fixture: tests/fixtures/ethtool/eeprom/cmis_osfp_16_lanes, built
// by make_fixtures.py from the spec tables.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectors/ethtool/module_eeprom.h"
#include "collectors/ethtool/optics_poller.h"
#include "tests/unit/ethtool/ethtool_test_util.h"

namespace rnic::optics {
namespace {

using ethtool::testing::LoadModule;
constexpr char kModule[] = "cmis_osfp_16_lanes";

TEST(CmisBanks, SixteenLaneModuleReadsBankOneAndNumbersOn) {
  const ModulePages p = LoadModule(kModule);
  EXPECT_EQ(BankPagesToRead(Spec::kCmis, p), (std::vector<PageId>{{1, 0x11}}));
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->lanes.size(), 16u);
  // Lane n carries (1 + n/100) mW TX power, (5 + n/10) mA bias,
  // (0.5 + n/100) mW RX power: bank 1's first lane is lane 9.
  EXPECT_NEAR(*d->lanes[0].tx_power_watts, 1.01e-3, 1e-7);
  EXPECT_NEAR(*d->lanes[8].tx_bias_amperes, 5.9e-3, 1e-5);
  EXPECT_NEAR(*d->lanes[15].rx_power_watts, 0.66e-3, 1e-7);
  // The RX power low alarm of bank 1 bit 3 is lane 12's.
  for (std::size_t i = 0; i < d->lanes.size(); ++i) {
    EXPECT_EQ(d->lanes[i].rx_power_flags.low_alarm, i == 11) << i;
  }
}

TEST(CmisBanks, BanksFollowTheAdvertisedField) {
  ModulePages p = LoadModule(kModule);
  Page& p01 = p.upper.at({0, 0x01});
  p01[142 - 128] = 0x02;  // banks 0-3
  EXPECT_EQ(BankPagesToRead(Spec::kCmis, p),
            (std::vector<PageId>{{1, 0x11}, {2, 0x11}, {3, 0x11}}));
  p01[142 - 128] = 0xff;  // reserved 11b, other bits set: bank 0 only
  EXPECT_TRUE(BankPagesToRead(Spec::kCmis, p).empty());
  p01[142 - 128] = 0x00;
  EXPECT_TRUE(BankPagesToRead(Spec::kCmis, p).empty());
  // An 8-lane module and other specs: nothing more to read.
  EXPECT_TRUE(BankPagesToRead(Spec::kCmis, LoadModule("cmis_qsfpdd")).empty());
  EXPECT_TRUE(
      BankPagesToRead(Spec::kSff8636, LoadModule("sff8636_qsfp28")).empty());
  // Before page 01h is read, there is nothing to say.
  p.upper.erase({0, 0x01});
  EXPECT_TRUE(BankPagesToRead(Spec::kCmis, p).empty());
}

TEST(CmisBanks, ThirtyTwoLanesAndAMissingBankEndsTheLanes) {
  ModulePages p = LoadModule(kModule);
  p.upper.at({0, 0x01})[142 - 128] = 0x02;  // banks 0-3
  Page bank3 = p.upper.at({1, 0x11});
  bank3[186 - 128] = 0x00;  // lane 25 RX power: 0x0064 * 0.1 uW = 10 uW
  bank3[187 - 128] = 0x64;
  p.upper[{3, 0x11}] = bank3;
  // Bank 2 unread: lanes 17.. would be misnumbered, so they end at 16.
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->lanes.size(), 16u);
  p.upper[{2, 0x11}] = p.upper.at({1, 0x11});
  d = Decode(p);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->lanes.size(), 32u);
  EXPECT_NEAR(*d->lanes[24].rx_power_watts, 10e-6, 1e-9);
}

// Serves the fixture's pages by window; `refuse_banks` answers EOPNOTSUPP
// for any bank but 0, as a driver without banked reads does.
EepromReadFn FixtureReader(std::vector<PageId>* asked, bool refuse_banks) {
  return [asked, refuse_banks](std::string_view, const ethtool::EepromWindow& w)
             -> Result<std::vector<std::uint8_t>> {
    asked->push_back({w.bank, w.page});
    if (refuse_banks && w.bank != 0) {
      return Error{"banked page refused", EOPNOTSUPP};
    }
    const std::string dir =
        ethtool::testing::kEthtoolFixtures + "/eeprom/" + kModule;
    if (w.offset == 0) return ethtool::testing::ReadBytes(dir + "/lower.bin");
    return ethtool::testing::ReadBytes(
        ethtool::testing::PageFile(kModule, PageId{w.bank, w.page}));
  };
}

TEST(CmisBanks, PollerReadsTheAdvertisedBank) {
  std::vector<PageId> asked;
  auto d = ReadModule(FixtureReader(&asked, false), "eth9");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->lanes.size(), 16u);
  EXPECT_EQ(asked.back(), (PageId{1, 0x11}));
}

TEST(CmisBanks, RefusedBankCostsOnlyItsLanes) {
  std::vector<PageId> asked;
  auto d = ReadModule(FixtureReader(&asked, true), "eth9");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->lanes.size(), 8u);
  EXPECT_TRUE(d->thresholds.has_value());
  EXPECT_NEAR(d->temperature_celsius, 55.0, 1e-9);
}

}  // namespace
}  // namespace rnic::optics
