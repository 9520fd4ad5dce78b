#include "collectors/ethtool/ethtool_collector.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>

#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include "collectors/nl/replay_transport.h"
#include "tests/unit/common/captured_log.h"
#include "tests/unit/ethtool/ethtool_test_util.h"
#include "tests/unit/family_check.h"
#include "tests/unit/series_map.h"

namespace rnic::ethtool {
namespace {

using testing::kEthtoolFixtures;
const std::string kSysfs = RNIC_FIXTURES_DIR "/roce/sys";
constexpr char kNetdev[] = "enp129s0f0np0";

ScrapeContext Forever() {
  return ScrapeContext{std::chrono::steady_clock::now() +
                       std::chrono::hours(1)};
}

std::unique_ptr<nl::ReplayTransport> Replay() {
  auto r = nl::ReplayTransport::FromDirectory(kEthtoolFixtures + "/replay");
  EXPECT_TRUE(r.ok());
  // What virtio-net and an mlx5 VF answer: the driver lacks the operation.
  r->SetMissingErrno(EOPNOTSUPP);
  return std::make_unique<nl::ReplayTransport>(std::move(*r));
}

// EEPROM reads through EthtoolNetlink over a replay transport of its own (the
// poller owns its socket in production too).
optics::EepromReadFn ReplayEeprom() {
  std::shared_ptr<nl::NetlinkTransport> t = Replay();
  auto c = EthtoolNetlink::Open(*t);
  EXPECT_TRUE(c.ok());
  auto client = std::make_shared<EthtoolNetlink>(std::move(*c));
  return [t, client](std::string_view netdev, const EepromWindow& w) {
    return client->ReadEeprom(netdev, w);
  };
}

using Series = rnic::testing::SeriesMap;  // "name{k=v,...}" -> value

Series Scrape(Collector& c) {
  MetricSet out;
  EXPECT_TRUE(c.Collect(Forever(), out).ok());
  rnic::testing::ExpectDeclared(MakeEthtoolCollectorSpec(), out.families());
  return rnic::testing::ToSeriesMap(out);
}

bool HasFamily(const Series& s, const std::string& family,
               const std::string& needle = "") {
  for (const auto& [k, v] : s) {
    if (k.rfind(family + "{", 0) == 0 && k.find(needle) != std::string::npos) {
      return true;
    }
  }
  return false;
}

const std::string kPort = "device=mlx5_0,port=1,netdev=enp129s0f0np0,";

TEST(EthtoolCollector, FecStatsAndOpticsForTheRoceNetdev) {
  Sources s;
  s.sysfs = kSysfs;
  s.transport = Replay();
  s.eeprom = ReplayEeprom();
  s.start_poller = false;
  EthtoolCollector c(std::move(s), nullptr);
  Scrape(c);  // tells the poller which netdevs exist
  c.poller()->PollOnce();
  const Series got = Scrape(c);

  EXPECT_EQ(got.at("rnic_fec_active_mode_info{" + kPort + "mode=rs,}"), 1);
  EXPECT_EQ(got.at("rnic_fec_corrected_blocks_total{" + kPort + "}"), 2244);
  EXPECT_EQ(got.at("rnic_fec_uncorrectable_blocks_total{" + kPort + "}"), 7);
  EXPECT_EQ(
      got.at("rnic_fec_lane_corrected_blocks_total{" + kPort + "lane=1,}"),
      1000);
  EXPECT_EQ(
      got.at("rnic_fec_lane_uncorrectable_blocks_total{" + kPort + "lane=0,}"),
      5);
  EXPECT_EQ(got.at("rnic_ethtool_eth_phy_symbol_error_during_carrier_total{" +
                   kPort + "}"),
            3);
  EXPECT_EQ(got.at("rnic_ethtool_eth_mac_frame_check_sequence_errors_total{" +
                   kPort + "}"),
            2);
  EXPECT_EQ(got.at("rnic_ethtool_rmon_jabbers_total{" + kPort + "}"), 0);

  EXPECT_EQ(got.at("rnic_optic_info{" + kPort +
                   "type=QSFP28,spec=sff8636,vendor=Mellanox,part_number="
                   "MMA1B00-C100D,revision=B2,serial=MT2101FT00042,}"),
            1);
  EXPECT_DOUBLE_EQ(got.at("rnic_optic_temperature_celsius{" + kPort + "}"),
                   35.5);
  EXPECT_NEAR(got.at("rnic_optic_rx_power_watts{" + kPort + "lane=4,}"),
              0.06e-3, 1e-7);
  EXPECT_NEAR(got.at("rnic_optic_rx_power_threshold_watts{" + kPort +
                     "level=low_warning,}"),
              0.1e-3, 1e-7);
  EXPECT_EQ(got.at("rnic_optic_alarm_flag{" + kPort +
                   "quantity=rx_power,level=low_warning,lane=4,}"),
            1);
  EXPECT_EQ(got.at("rnic_optic_alarm_flag{" + kPort +
                   "quantity=rx_power,level=low_warning,lane=3,}"),
            0);
  EXPECT_TRUE(HasFamily(got, "rnic_optic_last_read_timestamp_seconds"));
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto p = text.find(needle); p != std::string::npos;
       p = text.find(needle, p + 1)) {
    ++n;
  }
  return n;
}

TEST(EthtoolCollector, UnsupportedNetdevsGetNoSeries) {
  CapturedLog log;
  Sources s;
  s.sysfs = kSysfs;
  auto replay = Replay();
  nl::ReplayTransport* calls = replay.get();
  s.transport = std::move(replay);
  s.eeprom = ReplayEeprom();
  s.start_poller = false;
  EthtoolCollector c(std::move(s), nullptr);
  Scrape(c);
  c.poller()->PollOnce();
  const Series got = Scrape(c);
  // The VF (ens5f0v0) was asked once and answered EOPNOTSUPP; rxe0 on eth0
  // too. What a driver lacks is not asked again at every scrape.
  EXPECT_EQ(calls->calls().at("ETHTOOL_FEC_GET_ens5f0v0"), 1);
  EXPECT_EQ(calls->calls().at("ETHTOOL_STATS_GET_ens5f0v0"), 1);
  EXPECT_EQ(calls->calls().at("ETHTOOL_FEC_GET_enp129s0f0np0"), 2);
  for (const auto& [k, v] : got) {
    EXPECT_EQ(k.find("ens5f0v0"), std::string::npos) << k;
    EXPECT_EQ(k.find("netdev=eth0"), std::string::npos) << k;
  }
  // One log line per netdev and part, not one per scrape.
  const std::string lines = log.Take();
  EXPECT_EQ(Count(lines, "key=fec/ens5f0v0"), 1) << lines;
  EXPECT_EQ(Count(lines, "key=stats/eth0"), 1) << lines;
  EXPECT_EQ(Count(lines, "key=optics/ens5f0v0"), 1) << lines;
  EXPECT_EQ(Count(lines, "key=fec/enp129s0f0np0"), 0) << lines;
  // The InfiniBand port mlx5_1 has no netdev and is never asked about.
  for (const auto& [key, n] : calls->calls()) {
    EXPECT_EQ(key.find("mlx5_1"), std::string::npos) << key;
  }
}

// STATS_GET as a driver without any standard group answers it (dummy,
// virtio-net): the header alone, then the ack. Cut from the mlx5 capture.
std::vector<std::uint8_t> EmptyStatsReply() {
  std::ifstream in(kEthtoolFixtures + "/replay/ETHTOOL_STATS_GET_" +
                       std::string(kNetdev) + ".bin",
                   std::ios::binary);
  std::vector<std::uint8_t> full((std::istreambuf_iterator<char>(in)), {});
  nlmsghdr first;
  std::memcpy(&first, full.data(), sizeof first);
  // nlmsghdr, genlmsghdr, then ETHTOOL_A_STATS_HEADER (32 bytes here).
  constexpr std::uint32_t kHeadOnly = 16 + 4 + 32;
  std::vector<std::uint8_t> out(full.begin(), full.begin() + kHeadOnly);
  std::memcpy(out.data(), &kHeadOnly, sizeof kHeadOnly);
  out.insert(out.end(), full.begin() + NLMSG_ALIGN(first.nlmsg_len),
             full.end());
  return out;
}

TEST(EthtoolCollector, NetdevWithoutStandardStatsIsNotAskedAtEveryScrape) {
  Sources s;
  s.sysfs = kSysfs;
  auto replay = Replay();
  replay->Set("ETHTOOL_STATS_GET_eth0", EmptyStatsReply());
  nl::ReplayTransport* calls = replay.get();
  s.transport = std::move(replay);
  s.eeprom = ReplayEeprom();
  s.start_poller = false;
  EthtoolCollector c(std::move(s), nullptr);
  for (int i = 0; i < 3; ++i) {
    const Series got = Scrape(c);
    EXPECT_FALSE(
        HasFamily(got, "rnic_ethtool_eth_mac_frame_check_sequence_errors_total",
                  "netdev=eth0"));
    // The mlx5 netdev's statistics are still read at every scrape.
    EXPECT_TRUE(
        HasFamily(got, "rnic_ethtool_eth_mac_frame_check_sequence_errors_total",
                  kNetdev));
  }
  EXPECT_EQ(calls->calls().at("ETHTOOL_STATS_GET_eth0"), 1);
  EXPECT_EQ(calls->calls().at("ETHTOOL_STATS_GET_enp129s0f0np0"), 3);
}

TEST(EthtoolCollector, NoEthtoolFamilyExportsNothingAndSucceeds) {
  Sources s;
  s.sysfs = kSysfs;
  auto empty = std::make_unique<nl::ReplayTransport>();
  empty->SetMissingErrno(ENOENT);
  s.transport = std::move(empty);
  EthtoolCollector c(std::move(s), nullptr);
  EXPECT_TRUE(Scrape(c).empty());
}

// Module reads stay off the scrape path: with the module read blocked, a
// scrape still returns (without optics), and the reading shows up once the
// read completes.
TEST(EthtoolCollector, BlockedModuleReadNeverBlocksAScrape) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> entered;
  auto entered_once = std::make_shared<std::once_flag>();
  const optics::EepromReadFn fixture = ReplayEeprom();
  Sources s;
  s.sysfs = kSysfs;
  s.transport = Replay();
  s.eeprom = [&, fixture, released, entered_once](std::string_view netdev,
                                                  const EepromWindow& w) {
    std::call_once(*entered_once, [&] { entered.set_value(); });
    released.wait();  // a module that does not answer
    return fixture(netdev, w);
  };
  s.start_poller = true;
  EthtoolCollector c(std::move(s), nullptr);
  // Unblocks the reader before `c` joins its thread, also when an assertion
  // below returns early.
  struct Releaser {
    std::promise<void>& p;
    bool done = false;
    ~Releaser() {
      if (!done) p.set_value();
    }
  } releaser{release};
  // The first scrape names the netdevs; wait until the poller is stuck in a
  // read, then scrape again: it must return, without optics series.
  Scrape(c);
  entered.get_future().wait();
  const Series during = Scrape(c);
  EXPECT_TRUE(HasFamily(during, "rnic_fec_corrected_blocks_total"));
  EXPECT_FALSE(HasFamily(during, "rnic_optic_info"));
  const std::uint64_t rounds = c.poller()->rounds();
  releaser.done = true;
  release.set_value();
  while (c.poller()->rounds() <= rounds) std::this_thread::yield();
  const Series after = Scrape(c);
  EXPECT_TRUE(HasFamily(after, "rnic_optic_info", "serial=MT2101FT00042"));
}

// An EEPROM reader serving one SFF-8472 fixture module (A0h at 0x50, A2h
// at 0x51) for the RoCE netdev; other netdevs have no module.
optics::EepromReadFn SfpEeprom(const std::string& module) {
  return [module](std::string_view netdev,
                  const EepromWindow& w) -> Result<std::vector<std::uint8_t>> {
    if (netdev != kNetdev) return Error{"no module", EOPNOTSUPP};
    return testing::ReadBytes(
        kEthtoolFixtures + "/eeprom/" + module + "/" +
        (w.i2c_address == 0x51 ? "a2h.bin" : "lower.bin"));
  };
}

TEST(EthtoolCollector, SfpExportsTheQsfpFamiliesWithOneLane) {
  Sources s;
  s.sysfs = kSysfs;
  s.eeprom = SfpEeprom("sff8472_sfp28");
  s.start_poller = false;
  EthtoolCollector c(std::move(s), nullptr);
  Scrape(c);
  c.poller()->PollOnce();
  const Series got = Scrape(c);
  EXPECT_EQ(got.at("rnic_optic_info{" + kPort +
                   "type=SFP,spec=sff8472,vendor=FINISAR CORP.,part_number="
                   "FTLF8536P4BCL,revision=A,serial=X8J0042,}"),
            1);
  EXPECT_DOUBLE_EQ(got.at("rnic_optic_temperature_celsius{" + kPort + "}"),
                   -12.5);
  EXPECT_NEAR(got.at("rnic_optic_supply_voltage_volts{" + kPort + "}"), 3.31,
              1e-4);
  EXPECT_NEAR(got.at("rnic_optic_tx_bias_amperes{" + kPort + "lane=1,}"),
              7.5e-3, 2e-6);
  EXPECT_NEAR(got.at("rnic_optic_rx_power_watts{" + kPort + "lane=1,}"),
              0.042e-3, 1e-7);
  EXPECT_FALSE(HasFamily(got, "rnic_optic_rx_power_watts", "lane=2,"));
  EXPECT_NEAR(got.at("rnic_optic_temperature_threshold_celsius{" + kPort +
                     "level=low_alarm,}"),
              -40, 1e-9);
  EXPECT_EQ(got.at("rnic_optic_alarm_flag{" + kPort +
                   "quantity=tx_power,level=high_alarm,lane=1,}"),
            1);
  EXPECT_EQ(got.at("rnic_optic_alarm_flag{" + kPort +
                   "quantity=temperature,level=low_warning,lane=,}"),
            1);
  EXPECT_EQ(got.at("rnic_optic_alarm_flag{" + kPort +
                   "quantity=temperature,level=low_alarm,lane=,}"),
            0);
}

// Lane faults of each reading go to the board port_health reads: the
// published Intel SFP dump has RX LOS set.
TEST(EthtoolCollector, ModuleLaneFaultsArePublishedForPortHealth) {
  Sources s;
  s.sysfs = kSysfs;
  s.eeprom = SfpEeprom("sff8472_real_intel_e10gsfpsrx");
  s.start_poller = false;
  auto board = std::make_shared<ModuleFaultBoard>();
  s.module_faults = board;
  EthtoolCollector c(std::move(s), nullptr);
  Scrape(c);
  EXPECT_FALSE(board->Get("enp129s0f0np0").has_value());  // not read yet
  c.poller()->PollOnce();
  Scrape(c);
  const auto f = board->Get("enp129s0f0np0");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, (std::vector<ModuleLaneFault>{{1, "rx_los"}}));
}

// No digital diagnostics: the module's identity, no monitor series, and one
// log line saying why, not one per read.
TEST(EthtoolCollector, SfpWithoutDiagnosticsExportsItsIdentityOnly) {
  CapturedLog log;
  Sources s;
  s.sysfs = kSysfs;
  s.eeprom = SfpEeprom("sff8472_dac_no_ddm");
  s.optics_interval = std::chrono::milliseconds(0);  // every round reads
  s.start_poller = false;
  EthtoolCollector c(std::move(s), nullptr);
  Scrape(c);
  c.poller()->PollOnce();
  c.poller()->PollOnce();
  const Series got = Scrape(c);
  EXPECT_TRUE(HasFamily(got, "rnic_optic_info", "type=SFP,spec=sff8472"));
  EXPECT_TRUE(HasFamily(got, "rnic_optic_last_read_timestamp_seconds"));
  for (const char* family :
       {"rnic_optic_temperature_celsius", "rnic_optic_supply_voltage_volts",
        "rnic_optic_tx_bias_amperes", "rnic_optic_rx_power_watts",
        "rnic_optic_alarm_flag", "rnic_optic_temperature_threshold_celsius"}) {
    EXPECT_FALSE(HasFamily(got, family)) << family;
  }
  const std::string lines = log.Take();
  EXPECT_EQ(Count(lines, "key=optics-monitors/" + std::string(kNetdev)), 1)
      << lines;
  EXPECT_NE(lines.find("byte 92 bit 6"), std::string::npos) << lines;
  // Each round that read a module says so at debug level: the VM case waits
  // for it before counting the once-only lines.
  EXPECT_NE(lines.find("msg=\"optics round done\" round=2 modules=3"),
            std::string::npos)
      << lines;
}

// Refused with the flags, whether the collector is enabled or not: 293y
// overflowed the conversion to nanoseconds and spun the optics thread.
TEST(EthtoolCollector, OpticsIntervalOutsideItsRangeIsRefused) {
  const CollectorSpec spec = MakeEthtoolCollectorSpec();
  for (const char* bad : {"0", "999ms", "293y"}) {
    auto opts = spec.ParseOptions({{"optics-interval", bad}});
    ASSERT_FALSE(opts.ok()) << bad;
    EXPECT_EQ(opts.error().message,
              "--collector.ethtool.optics-interval=" + std::string(bad) +
                  ": must be between 1s and 1d");
  }
  EXPECT_TRUE(spec.ParseOptions({{"optics-interval", "24h"}}).ok());
}

}  // namespace
}  // namespace rnic::ethtool
