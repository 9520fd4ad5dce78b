// SFF-8472 (SFP/SFP+/SFP28) decoding and reading. The fixtures are built by
// tests/fixtures/ethtool/make_fixtures.py from the SFF-8472 rev 12.4 tables;
// each expected value below is the one encoded there.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <utility>

#include "collectors/ethtool/module_eeprom.h"
#include "collectors/ethtool/optics_poller.h"
#include "tests/unit/ethtool/ethtool_test_util.h"

namespace rnic::optics {
namespace {

using ethtool::testing::kEthtoolFixtures;
using ethtool::testing::LoadModule;
using ethtool::testing::ReadBytes;

constexpr double kEps = 1e-9;
// One LSB of each unit: encoding rounds to it.
constexpr double kAmpLsb = 2e-6;
constexpr double kWattLsb = 0.1e-6;
constexpr double kVoltLsb = 100e-6;

void ExpectFlags(const Flags& f, bool ha, bool la, bool hw, bool lw,
                 const char* what) {
  EXPECT_EQ(f.high_alarm, ha) << what;
  EXPECT_EQ(f.low_alarm, la) << what;
  EXPECT_EQ(f.high_warning, hw) << what;
  EXPECT_EQ(f.low_warning, lw) << what;
}

TEST(Sff8472, IdentifiesSfpAndReadsA2hOnlyWithDiagnostics) {
  const ModulePages ddm = LoadModule("sff8472_sfp28");
  auto spec = Identify(ddm.lower);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(*spec, Spec::kSff8472);
  EXPECT_EQ(SpecName(*spec), "sff8472");
  EXPECT_TRUE(PagesToRead(*spec, ddm.lower).empty());
  EXPECT_TRUE(WantsA2h(*spec, ddm.lower));
  const ModulePages dac = LoadModule("sff8472_dac_no_ddm");
  EXPECT_FALSE(WantsA2h(Spec::kSff8472, dac.lower));
  // Byte 92 of a QSFP means something else: never an A2h read.
  const ModulePages qsfp = LoadModule("sff8636_qsfp28");
  EXPECT_FALSE(WantsA2h(Spec::kSff8636, qsfp.lower));
}

TEST(Sff8472, InternallyCalibratedModuleDecodesInBaseUnits) {
  auto d = Decode(LoadModule("sff8472_sfp28"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->spec, Spec::kSff8472);
  EXPECT_EQ(d->identifier, 0x03);
  EXPECT_EQ(d->type, "SFP");
  EXPECT_EQ(d->vendor, "FINISAR CORP.");
  EXPECT_EQ(d->part_number, "FTLF8536P4BCL");
  EXPECT_EQ(d->revision, "A");
  EXPECT_EQ(d->serial, "X8J0042");
  EXPECT_TRUE(d->monitors);
  // A2h 96-105: a negative temperature is two's complement.
  EXPECT_NEAR(d->temperature_celsius, -12.5, kEps);
  EXPECT_NEAR(d->supply_voltage_volts, 3.31, kVoltLsb / 2);
  ASSERT_EQ(d->lanes.size(), 1u);
  const Lane& l = d->lanes[0];
  EXPECT_NEAR(*l.tx_bias_amperes, 7.5e-3, kAmpLsb / 2);
  EXPECT_NEAR(*l.tx_power_watts, 1.05e-3, kWattLsb / 2);
  EXPECT_NEAR(*l.rx_power_watts, 0.042e-3, kWattLsb / 2);
  // A2h 0-39, each quantity's HA, LA, HW, LW.
  ASSERT_TRUE(d->thresholds.has_value());
  const auto& t = *d->thresholds;
  EXPECT_NEAR(t.temperature.high_alarm, 80, kEps);
  EXPECT_NEAR(t.temperature.low_alarm, -40, kEps);
  EXPECT_NEAR(t.temperature.high_warning, 75, kEps);
  EXPECT_NEAR(t.temperature.low_warning, -5, kEps);
  EXPECT_NEAR(t.supply_voltage.high_alarm, 3.6, kVoltLsb / 2);
  EXPECT_NEAR(t.supply_voltage.low_warning, 3.1, kVoltLsb / 2);
  EXPECT_NEAR(t.tx_bias.high_alarm, 12e-3, kAmpLsb / 2);
  EXPECT_NEAR(t.tx_bias.low_alarm, 2e-3, kAmpLsb / 2);
  EXPECT_NEAR(t.tx_power.high_alarm, 1.0e-3, kWattLsb / 2);
  EXPECT_NEAR(t.tx_power.high_warning, 0.8e-3, kWattLsb / 2);
  EXPECT_NEAR(t.rx_power.low_alarm, 0.02e-3, kWattLsb / 2);
  EXPECT_NEAR(t.rx_power.low_warning, 0.05e-3, kWattLsb / 2);
  // A2h 112-113 alarms, 116-117 warnings: exactly the three set bits.
  ExpectFlags(d->temperature_flags, false, false, false, true, "temperature");
  ExpectFlags(d->supply_voltage_flags, false, false, false, false, "vcc");
  ExpectFlags(l.tx_bias_flags, false, false, false, false, "tx bias");
  ExpectFlags(l.tx_power_flags, true, false, false, false, "tx power");
  ExpectFlags(l.rx_power_flags, false, false, false, true, "rx power");
}

// Each flag bit lands on its own quantity and level (Table 9-12).
TEST(Sff8472, EveryFlagBitHasItsOwnQuantityAndLevel) {
  ModulePages p = LoadModule("sff8472_sfp28");
  p.a2h->at(112) = 0x80 | 0x10 | 0x04;  // temp HA, Vcc LA, bias LA
  p.a2h->at(113) = 0x80;                // Rx power HA
  p.a2h->at(116) = 0x20 | 0x08 | 0x01;  // Vcc HW, bias HW, Tx power LW
  p.a2h->at(117) = 0x00;
  auto d = Decode(p);
  ASSERT_TRUE(d.ok());
  const Lane& l = d->lanes[0];
  ExpectFlags(d->temperature_flags, true, false, false, false, "temperature");
  ExpectFlags(d->supply_voltage_flags, false, true, true, false, "vcc");
  ExpectFlags(l.tx_bias_flags, false, true, true, false, "tx bias");
  ExpectFlags(l.tx_power_flags, false, false, false, true, "tx power");
  ExpectFlags(l.rx_power_flags, true, false, false, false, "rx power");
}

TEST(Sff8472, ExternallyCalibratedModuleAppliesTheA2hConstants) {
  auto d = Decode(LoadModule("sff8472_ext_cal"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_TRUE(d->monitors) << d->no_monitors_reason;
  // The expected values beside each raw reading in make_fixtures.py.
  EXPECT_NEAR(d->temperature_celsius, 30.0, kEps);
  EXPECT_NEAR(d->supply_voltage_volts, 3.21, kEps);
  ASSERT_EQ(d->lanes.size(), 1u);
  EXPECT_NEAR(*d->lanes[0].tx_bias_amperes, 5.8e-3, kEps);
  EXPECT_NEAR(*d->lanes[0].tx_power_watts, 0.605e-3, kEps);
  // 2^-16 * 4000^2 + 0.5 * 4000 + 10 = 2254.140625 (x 0.1 uW).
  EXPECT_NEAR(*d->lanes[0].rx_power_watts, 225.4140625e-6, 1e-15);
  // Thresholds are raw A/D values too, calibrated the same way.
  ASSERT_TRUE(d->thresholds.has_value());
  EXPECT_NEAR(d->thresholds->temperature.high_alarm, 70.0, kEps);
  EXPECT_NEAR(d->thresholds->temperature.low_alarm, -10.0, kEps);
  EXPECT_NEAR(d->thresholds->rx_power.low_alarm, 6.0152587890625e-6, 1e-15);
}

TEST(Sff8472, NonFiniteCalibrationConstantMeansNoMonitors) {
  ModulePages p = LoadModule("sff8472_ext_cal");
  // Rx_PWR(1) at A2h 68-71 := NaN (an erased EEPROM reads 0xff).
  for (int i = 68; i < 72; ++i) p.a2h->at(i) = 0xff;
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->monitors);
  EXPECT_NE(d->no_monitors_reason.find("calibration"), std::string::npos);
  EXPECT_TRUE(d->lanes.empty());
  EXPECT_FALSE(d->thresholds.has_value());
}

TEST(Sff8472, ModuleWithoutDiagnosticsHasIdentityOnly) {
  const ModulePages p = LoadModule("sff8472_dac_no_ddm");
  EXPECT_FALSE(p.a2h.has_value());
  auto d = Decode(p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->type, "SFP");
  EXPECT_EQ(d->vendor, "Mellanox");
  EXPECT_EQ(d->part_number, "MCP2M00-A001");
  EXPECT_EQ(d->revision, "A2");
  EXPECT_EQ(d->serial, "MT1945VS01234");
  EXPECT_FALSE(d->monitors);
  EXPECT_NE(d->no_monitors_reason.find("byte 92 bit 6"), std::string::npos)
      << d->no_monitors_reason;
  EXPECT_TRUE(d->lanes.empty());
  EXPECT_FALSE(d->thresholds.has_value());
}

TEST(Sff8472, AddressChangeModuleIsNotReadAtA2h) {
  ModulePages p = LoadModule("sff8472_sfp28");
  p.lower[92] |= 0x04;  // byte 92 bit 2: address change required
  EXPECT_FALSE(WantsA2h(Spec::kSff8472, p.lower));
  auto d = Decode(p);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->monitors);
  EXPECT_NE(d->no_monitors_reason.find("address change"), std::string::npos);
}

TEST(Sff8472, MissingA2hIsAnErrorAndNotReadyIsRetried) {
  ModulePages p = LoadModule("sff8472_sfp28");
  ModulePages missing = p;
  missing.a2h.reset();
  auto m = Decode(missing);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("A2h"), std::string::npos);
  p.a2h->at(110) |= 0x01;  // Data_Ready_Bar
  auto n = Decode(p);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().errno_value, EAGAIN);
}

// A real module's published dump (source in make_fixtures.py); the values
// decoded by hand from its bytes.
TEST(Sff8472, RealIntelE10gsfpsrxDump) {
  auto d = Decode(LoadModule("sff8472_real_intel_e10gsfpsrx"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->type, "SFP");
  EXPECT_EQ(d->vendor, "Intel Corp");
  EXPECT_EQ(d->part_number, "FTLX8574D3BNL-IT");
  EXPECT_EQ(d->revision, "A");
  EXPECT_EQ(d->serial, "A41ASYK");
  ASSERT_TRUE(d->monitors);
  // A2h 96-105: 23 56 | 85 e0 | 10 f8 | 16 94 | 00 15.
  EXPECT_NEAR(d->temperature_celsius, 35.3359375, kEps);  // 9046 / 256
  EXPECT_NEAR(d->supply_voltage_volts, 3.4272, kEps);
  ASSERT_EQ(d->lanes.size(), 1u);
  const Lane& l = d->lanes[0];
  EXPECT_NEAR(*l.tx_bias_amperes, 8.688e-3, kEps);
  EXPECT_NEAR(*l.tx_power_watts, 0.578e-3, kEps);
  EXPECT_NEAR(*l.rx_power_watts, 2.1e-6, kEps);
  // A2h 0-39: temperature 93/-13/88/-8 degC, Vcc 3.7/2.9/3.6/3.0 V, bias
  // 13/4/12.5/5 mA, Tx power HA 1 mW, Rx power LA 10 uW.
  ASSERT_TRUE(d->thresholds.has_value());
  const auto& t = *d->thresholds;
  EXPECT_NEAR(t.temperature.high_alarm, 93, kEps);
  EXPECT_NEAR(t.temperature.low_alarm, -13, kEps);
  EXPECT_NEAR(t.temperature.low_warning, -8, kEps);
  EXPECT_NEAR(t.supply_voltage.low_alarm, 2.9, kEps);
  EXPECT_NEAR(t.tx_bias.high_warning, 12.5e-3, kEps);
  EXPECT_NEAR(t.tx_power.high_alarm, 1e-3, kEps);
  EXPECT_NEAR(t.rx_power.low_alarm, 10e-6, kEps);
  EXPECT_NEAR(t.rx_power.low_warning, 15.8e-6, kEps);
  // 2.1 uW is below both: bytes 113 and 117 = 0x40, nothing else.
  ExpectFlags(l.rx_power_flags, false, true, false, true, "rx power");
  ExpectFlags(l.tx_power_flags, false, false, false, false, "tx power");
  ExpectFlags(d->temperature_flags, false, false, false, false, "temp");
}

// ReadModule asks A0h at 0x50, then A2h bytes 0..127 at 0x51 (page 0, the
// lower half: the only window the kernel allows there), and nothing at 0x51
// for a module without diagnostics.
TEST(Sff8472, ReaderAsksA2hAtAddress0x51OnlyWhenWanted) {
  for (const std::string module : {"sff8472_sfp28", "sff8472_dac_no_ddm"}) {
    std::vector<ethtool::EepromWindow> asked;
    const EepromReadFn read = [&](std::string_view,
                                  const ethtool::EepromWindow& w)
        -> Result<std::vector<std::uint8_t>> {
      asked.push_back(w);
      const std::string file = w.i2c_address == 0x51 ? "a2h.bin" : "lower.bin";
      if (w.page != 0 || w.offset != 0 || w.length != 128) {
        return Error{"window outside the fixture", EINVAL};
      }
      return ReadBytes(kEthtoolFixtures + "/eeprom/" + module + "/" + file);
    };
    auto d = ReadModule(read, "eth0");
    ASSERT_TRUE(d.ok()) << module << ": " << d.error().message;
    const bool ddm = module == "sff8472_sfp28";
    ASSERT_EQ(asked.size(), ddm ? 2u : 1u) << module;
    EXPECT_EQ(asked[0].i2c_address, 0x50);
    if (ddm) {
      EXPECT_EQ(asked[1].i2c_address, kSff8472DiagAddress);
      EXPECT_EQ(asked[1].page, 0);
      EXPECT_EQ(asked[1].offset, 0u);
      EXPECT_EQ(asked[1].length, 128u);
      EXPECT_NEAR(d->temperature_celsius, -12.5, kEps);
    }
    EXPECT_EQ(d->monitors, ddm);
  }
}

}  // namespace
}  // namespace rnic::optics
