#include "collectors/ethtool/module_eeprom.h"

#include <gtest/gtest.h>

#include "tests/unit/ethtool/ethtool_test_util.h"

namespace rnic::optics {
namespace {

using ethtool::testing::LoadModule;

constexpr double kEps = 1e-9;

TEST(ModuleEeprom, Sff8636Qsfp28DecodesMonitorsInBaseUnits) {
  auto d = Decode(LoadModule("sff8636_qsfp28"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->spec, Spec::kSff8636);
  EXPECT_EQ(d->type, "QSFP28");
  EXPECT_EQ(d->vendor, "Mellanox");
  EXPECT_EQ(d->part_number, "MMA1B00-C100D");
  EXPECT_EQ(d->revision, "B2");
  EXPECT_EQ(d->serial, "MT2101FT00042");
  EXPECT_NEAR(d->temperature_celsius, 35.5, kEps);
  EXPECT_NEAR(d->supply_voltage_volts, 3.3, 1e-4);
  ASSERT_EQ(d->lanes.size(), 4u);
  EXPECT_NEAR(*d->lanes[0].rx_power_watts, 0.80e-3, 1e-7);
  EXPECT_NEAR(*d->lanes[3].rx_power_watts, 0.06e-3, 1e-7);
  EXPECT_NEAR(*d->lanes[1].tx_bias_amperes, 6.6e-3, 2e-6);
  EXPECT_NEAR(*d->lanes[2].tx_power_watts, 0.92e-3, 1e-7);
  // Byte 10 low nibble: lane 4 RX power low warning, nothing else.
  EXPECT_TRUE(d->lanes[3].rx_power_flags.low_warning);
  EXPECT_FALSE(d->lanes[3].rx_power_flags.low_alarm);
  EXPECT_FALSE(d->lanes[2].rx_power_flags.low_warning);
  EXPECT_FALSE(d->temperature_flags.high_alarm);
  ASSERT_TRUE(d->thresholds.has_value());
  EXPECT_NEAR(d->thresholds->temperature.high_alarm, 75, kEps);
  EXPECT_NEAR(d->thresholds->temperature.low_alarm, -5, kEps);
  EXPECT_NEAR(d->thresholds->supply_voltage.high_warning, 3.465, 1e-4);
  EXPECT_NEAR(d->thresholds->rx_power.low_warning, 0.1e-3, 1e-7);
  EXPECT_NEAR(d->thresholds->tx_bias.high_alarm, 15e-3, 2e-6);
  EXPECT_NEAR(d->thresholds->tx_power.low_alarm, 0.12e-3, 1e-7);
}

TEST(ModuleEeprom, CmisQsfpDdUsesMediaLanesAndBiasMultiplier) {
  auto d = Decode(LoadModule("cmis_qsfpdd"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->spec, Spec::kCmis);
  EXPECT_EQ(d->type, "QSFP-DD");
  EXPECT_EQ(d->vendor, "NVIDIA");
  EXPECT_EQ(d->part_number, "MMS1X00-NS400");
  EXPECT_EQ(d->serial, "MT2233JT01234");
  EXPECT_NEAR(d->temperature_celsius, 71.0, kEps);
  EXPECT_NEAR(d->supply_voltage_volts, 3.29, 1e-4);
  EXPECT_TRUE(d->temperature_flags.high_warning);
  EXPECT_FALSE(d->temperature_flags.high_alarm);
  EXPECT_FALSE(d->supply_voltage_flags.high_warning);
  // Byte 88 says 4 media lanes, not the 8 page 11h has room for.
  ASSERT_EQ(d->lanes.size(), 4u);
  // The bias LSB is 2 uA times the page 01h multiplier (2 here).
  EXPECT_NEAR(*d->lanes[1].tx_bias_amperes, 7.2e-3, 4e-6);
  EXPECT_NEAR(*d->lanes[0].tx_power_watts, 1.5e-3, 1e-7);
  EXPECT_NEAR(*d->lanes[2].rx_power_watts, 0.05e-3, 1e-7);
  EXPECT_TRUE(d->lanes[2].rx_power_flags.low_alarm);
  EXPECT_FALSE(d->lanes[1].rx_power_flags.low_alarm);
  ASSERT_TRUE(d->thresholds.has_value());
  EXPECT_NEAR(d->thresholds->temperature.high_warning, 70, kEps);
  EXPECT_NEAR(d->thresholds->tx_bias.high_alarm, 13e-3, 4e-6);
  EXPECT_NEAR(d->thresholds->rx_power.low_alarm, 0.1e-3, 1e-7);
  EXPECT_NEAR(d->thresholds->tx_power.high_warning, 3.2e-3, 1e-7);
}

TEST(ModuleEeprom, FlatMemoryModuleHasNoThresholdsOrLanes) {
  const ModulePages p = LoadModule("cmis_flat_osfp_dac");
  auto spec = Identify(p.lower);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(PagesToRead(*spec, p.lower).size(), 1u);
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_TRUE(d->flat_memory);
  EXPECT_EQ(d->type, "OSFP");
  EXPECT_EQ(d->vendor, "Amphenol");
  EXPECT_FALSE(d->thresholds.has_value());
  EXPECT_TRUE(d->lanes.empty());
}

TEST(ModuleEeprom, PagesToReadFollowSpecAndMemoryModel) {
  const ModulePages sff = LoadModule("sff8636_qsfp28");
  EXPECT_EQ(PagesToRead(Spec::kSff8636, sff.lower),
            (std::vector<PageId>{{0, 0x00}, {0, 0x03}}));
  const ModulePages cmis = LoadModule("cmis_qsfpdd");
  EXPECT_EQ(PagesToRead(Spec::kCmis, cmis.lower),
            (std::vector<PageId>{{0, 0x00}, {0, 0x01}, {0, 0x02}, {0, 0x11}}));
}

TEST(ModuleEeprom, UnknownIdentifierIsRefusedNotMisread) {
  ModulePages p = LoadModule("sff8472_sfp28");
  p.lower[0] = 0x0b;  // SFF-8024: DWDM-SFP, none of the three specs
  auto spec = Identify(p.lower);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().errno_value, EOPNOTSUPP);
  EXPECT_NE(spec.error().message.find("0x0b"), std::string::npos);
  EXPECT_FALSE(Decode(p).ok());
}

TEST(ModuleEeprom, MissingPageIsAnError) {
  ModulePages p = LoadModule("cmis_qsfpdd");
  p.upper.erase(PageId{0, 0x11});
  auto d = Decode(p);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("page 11h"), std::string::npos)
      << d.error().message;
  ModulePages s = LoadModule("sff8636_qsfp28");
  s.upper.erase(PageId{0, 0x03});
  EXPECT_FALSE(Decode(s).ok());
}

TEST(ModuleEeprom, Sff8636DataNotReadyIsRetriedNotExported) {
  ModulePages p = LoadModule("sff8636_qsfp28");
  p.lower[2] |= 0x01;
  auto d = Decode(p);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().errno_value, EAGAIN);
}

TEST(ModuleEeprom, NegativeTemperatureAndUnprintableVendor) {
  ModulePages p = LoadModule("sff8636_qsfp28");
  p.lower[22] = 0xfb;  // -5.0 degC: 0xfb00 / 256
  p.lower[23] = 0x00;
  p.upper[PageId{0, 0}][148 - 128] = 0x01;
  auto d = Decode(p);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->temperature_celsius, -5.0, kEps);
  EXPECT_EQ(d->vendor.substr(0, 2), "?e");
}

TEST(ModuleEeprom, Sff8636LaneFaultsFromLowerPageBytes3To5) {
  auto p = LoadModule("sff8636_qsfp28");
  p.lower[3] = 0x21;  // RX LOS lane 1, TX LOS lane 2
  p.lower[4] = 0x08;  // TX fault lane 4
  p.lower[5] = 0x42;  // RX CDR LOL lane 2, TX CDR LOL lane 3
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->lanes.size(), 4u);
  EXPECT_TRUE(d->lanes[0].faults.rx_los);
  EXPECT_FALSE(d->lanes[0].faults.tx_los);
  EXPECT_TRUE(d->lanes[1].faults.tx_los);
  EXPECT_TRUE(d->lanes[3].faults.tx_fault);
  EXPECT_FALSE(d->lanes[2].faults.tx_fault);
  EXPECT_TRUE(d->lanes[1].faults.rx_cdr_lol);
  EXPECT_TRUE(d->lanes[2].faults.tx_cdr_lol);
  EXPECT_FALSE(d->lanes[2].faults.rx_cdr_lol);
  // The fixture as recorded: no fault anywhere.
  auto clean = Decode(LoadModule("sff8636_qsfp28"));
  ASSERT_TRUE(clean.ok());
  for (const auto& l : clean->lanes) {
    EXPECT_FALSE(l.faults.tx_fault || l.faults.rx_los || l.faults.tx_los ||
                 l.faults.rx_cdr_lol || l.faults.tx_cdr_lol);
  }
}

TEST(ModuleEeprom, CmisLaneFaultsFromPage11h) {
  auto p = LoadModule("cmis_qsfpdd");
  Page& p11 = p.upper[PageId{0, 0x11}];
  p11[135 - 128] = 0x02;  // TX fault lane 2
  p11[136 - 128] = 0x04;  // TX LOS lane 3
  p11[137 - 128] = 0x01;  // TX CDR LOL lane 1
  p11[147 - 128] = 0x08;  // RX LOS lane 4
  p11[148 - 128] = 0x01;  // RX CDR LOL lane 1
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->lanes.size(), 4u);
  EXPECT_TRUE(d->lanes[1].faults.tx_fault);
  EXPECT_FALSE(d->lanes[0].faults.tx_fault);
  EXPECT_TRUE(d->lanes[2].faults.tx_los);
  EXPECT_TRUE(d->lanes[0].faults.tx_cdr_lol);
  EXPECT_TRUE(d->lanes[3].faults.rx_los);
  EXPECT_TRUE(d->lanes[0].faults.rx_cdr_lol);
  EXPECT_FALSE(d->lanes[3].faults.rx_cdr_lol);
}

TEST(ModuleEeprom, Sff8472StatusBitsOfARealModule) {
  // The published dump of an Intel E10GSFPSR: byte 110 = 0x32, RX LOS
  // set, TX fault clear.
  auto d = Decode(LoadModule("sff8472_real_intel_e10gsfpsrx"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->lanes.size(), 1u);
  EXPECT_TRUE(d->lanes[0].faults.rx_los);
  EXPECT_FALSE(d->lanes[0].faults.tx_fault);
  auto p = LoadModule("sff8472_sfp28");
  (*p.a2h)[110] = 0x04;
  auto f = Decode(p);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_TRUE(f->lanes[0].faults.tx_fault);
  EXPECT_FALSE(f->lanes[0].faults.rx_los);
}

}  // namespace
}  // namespace rnic::optics
