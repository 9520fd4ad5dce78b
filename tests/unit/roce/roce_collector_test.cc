#include "collectors/roce/roce_collector.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "tests/unit/family_check.h"
#include "tests/unit/roce/test_netns.h"

namespace rnic {
namespace {

namespace fs = std::filesystem;
const std::string kRoot = RNIC_FIXTURES_DIR "/roce";

ScrapeContext Forever() {
  return ScrapeContext{std::chrono::steady_clock::now() +
                       std::chrono::hours(1)};
}

// Captures log lines for the duration of a test.
class LogCapture {
 public:
  LogCapture()
      : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000)),
        old_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("test", sink_);
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(old_); }
  int Count(const std::string& needle) const {
    int n = 0;
    for (const auto& l : sink_->last_formatted()) {
      if (l.find(needle) != std::string::npos) ++n;
    }
    return n;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> old_;
};

struct Sample {
  std::string family;
  std::map<std::string, std::string> labels;
  double value;
};

std::vector<Sample> Scrape(Collector& c) {
  MetricSet out;
  EXPECT_TRUE(c.Collect(Forever(), out).ok());
  std::vector<Sample> samples;
  for (const auto& f : out.families()) {
    for (const auto& m : f.metric) {
      Sample s{f.name,
               {},
               f.type == prometheus::MetricType::Counter ? m.counter.value
                                                         : m.gauge.value};
      for (const auto& l : m.label) s.labels[l.name] = l.value;
      samples.push_back(std::move(s));
    }
  }
  return samples;
}

std::optional<double> Value(const std::vector<Sample>& samples,
                            const std::string& family,
                            const std::map<std::string, std::string>& want) {
  std::optional<double> found;
  for (const auto& s : samples) {
    if (s.family != family) continue;
    bool match = true;
    for (const auto& [k, v] : want) {
      auto it = s.labels.find(k);
      if (it == s.labels.end() || it->second != v) match = false;
    }
    if (!match) continue;
    EXPECT_FALSE(found) << "two samples match in " << family;
    found = s.value;
  }
  return found;
}

int Count(const std::vector<Sample>& samples, const std::string& label,
          const std::string& value) {
  int n = 0;
  for (const auto& s : samples) {
    auto it = s.labels.find(label);
    if (it != s.labels.end() && it->second == value) ++n;
  }
  return n;
}

std::unique_ptr<Collector> FixtureCollector(const std::string& root) {
  RoceSources src;
  src.sysfs = root + "/sys";
  src.procfs = root + "/proc";
  src.ethtool = MakeFixtureEthtoolStats(root + "/ethtool");
  src.dcb = MakeFixtureDcbSource(root + "/dcb");
  return MakeRoceCollector(std::move(src));
}

TEST(RoceCollectorTest, Mlx5PfOnFixtures) {
  auto c = FixtureCollector(kRoot);
  const auto s = Scrape(*c);
  const std::map<std::string, std::string> pf = {
      {"device", "mlx5_0"}, {"port", "1"}, {"netdev", "enp129s0f0np0"}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(pf.begin(), pf.end());
    return extra;
  };
  EXPECT_EQ(Value(s, "rnic_pfc_pause_frames_total",
                  with({{"priority", "3"}, {"direction", "rx"}})),
            1520);
  EXPECT_EQ(Value(s, "rnic_pfc_pause_frames_total",
                  with({{"priority", "3"}, {"direction", "tx"}})),
            4410);
  EXPECT_DOUBLE_EQ(*Value(s, "rnic_pfc_pause_duration_seconds_total",
                          with({{"priority", "3"}, {"direction", "tx"}})),
                   2.5);
  EXPECT_DOUBLE_EQ(*Value(s, "rnic_pfc_pause_duration_seconds_total",
                          with({{"priority", "3"}, {"direction", "rx"}})),
                   0.098765);
  EXPECT_EQ(
      Value(s, "rnic_pfc_pause_transitions_total", with({{"priority", "3"}})),
      760);
  // PFC is off on priority 0: the driver has no counter, we export none.
  EXPECT_FALSE(
      Value(s, "rnic_pfc_pause_frames_total", with({{"priority", "0"}})));
  EXPECT_EQ(Value(s, "rnic_pfc_pause_storm_warning_events_total", pf), 2);
  EXPECT_EQ(Value(s, "rnic_pfc_pause_storm_error_events_total", pf), 0);
  EXPECT_EQ(
      Value(s, "rnic_rx_priority_discards_total", with({{"priority", "3"}})),
      17);
  EXPECT_EQ(Value(s, "rnic_rx_priority_buffer_discards_total",
                  with({{"priority", "3"}})),
            5);
  EXPECT_EQ(Value(s, "rnic_rx_priority_congestion_discards_total",
                  with({{"priority", "3"}})),
            9);
  EXPECT_EQ(Value(s, "rnic_rx_priority_ecn_marked_packets_total",
                  with({{"priority", "3"}})),
            123456);
  EXPECT_EQ(Value(s, "rnic_phy_rx_discards_total", pf), 31);
  EXPECT_EQ(Value(s, "rnic_phy_tx_discards_total", pf), 4);
  EXPECT_EQ(Value(s, "rnic_rx_out_of_buffer_total", pf), 77);
  EXPECT_DOUBLE_EQ(*Value(s, "rnic_pcie_outbound_stalled_reads_ratio", pf),
                   0.12);
  EXPECT_DOUBLE_EQ(*Value(s, "rnic_pcie_outbound_stalled_writes_ratio", pf),
                   0.40);
  EXPECT_EQ(Value(s, "rnic_pcie_outbound_stalled_reads_seconds_total", pf), 3);
  EXPECT_EQ(Value(s, "rnic_pcie_outbound_stalled_writes_seconds_total", pf), 8);
  EXPECT_EQ(Value(s, "rnic_pcie_outbound_buffer_overflow_packets_total", pf),
            6);
  // Tuning facts.
  EXPECT_EQ(Value(s, "rnic_netdev_mtu_bytes", pf), 9000);
  EXPECT_EQ(Value(s, "rnic_roce_mtu_4096_capable", pf), 1);
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(
        Value(s, "rnic_pfc_enabled", with({{"priority", std::to_string(p)}})),
        p == 3 ? 1 : 0);
    for (const char* role : {"np", "rp"}) {
      EXPECT_EQ(Value(s, "rnic_roce_ecn_enabled",
                      with({{"priority", std::to_string(p)}, {"role", role}})),
                p == 3 ? 1 : 0);
    }
  }
  EXPECT_EQ(Value(s, "rnic_dcb_willing", pf), 0);
  EXPECT_EQ(Value(s, "rnic_dcb_app_dscp_mappings", pf), 64);
  EXPECT_EQ(Value(s, "rnic_numa_node", {{"device", "mlx5_0"}}), 1);
  EXPECT_EQ(Value(s, "rnic_irqs", {{"device", "mlx5_0"}}), 8);
  EXPECT_EQ(Value(s, "rnic_irqs_off_numa_node", {{"device", "mlx5_0"}}), 2);
}

TEST(RoceCollectorTest, OtherDevicesExportOnlyWhatTheyHave) {
  LogCapture log;
  auto c = FixtureCollector(kRoot);
  const auto s = Scrape(*c);
  // The InfiniBand port is not RoCE.
  EXPECT_EQ(Count(s, "device", "mlx5_1"), 0);
  // Soft-RoCE on virtio-net: no PFC counters, no DCB, no NUMA: only MTU.
  std::set<std::string> rxe;
  for (const auto& x : s) {
    if (x.labels.count("device") && x.labels.at("device") == "rxe0") {
      rxe.insert(x.family);
    }
  }
  EXPECT_EQ(rxe, (std::set<std::string>{"rnic_netdev_mtu_bytes",
                                        "rnic_roce_mtu_4096_capable"}));
  const std::map<std::string, std::string> eth0 = {{"netdev", "eth0"}};
  EXPECT_EQ(Value(s, "rnic_roce_mtu_4096_capable", eth0), 0);
  // VF: NUMA -1, IRQs counted, but no node to compare against.
  EXPECT_EQ(Value(s, "rnic_numa_node", {{"device", "mlx5_2"}}), -1);
  EXPECT_EQ(Value(s, "rnic_irqs", {{"device", "mlx5_2"}}), 2);
  EXPECT_FALSE(Value(s, "rnic_irqs_off_numa_node", {{"device", "mlx5_2"}}));
  EXPECT_EQ(Value(s, "rnic_roce_mtu_4096_capable", {{"netdev", "ens5f0v0"}}),
            1);
  EXPECT_FALSE(Value(s, "rnic_pfc_enabled", {{"netdev", "ens5f0v0"}}));
  // Skipped values are logged once, not at every scrape.
  (void)Scrape(*c);
  (void)Scrape(*c);
  EXPECT_EQ(log.Count("key=dcb/eth0"), 1);
  EXPECT_EQ(log.Count("key=ethtool/ens5f0v0"), 1);
}

// A source that counts the questions it is asked and answers EOPNOTSUPP
// (a driver without ethtool statistics or dcbnl). The vanished-netdev path
// is proven by e2e_roce on a real veth.
struct UnsupportedCounts {
  int ethtool = 0;
  int dcb = 0;
};
class CountingEthtool : public EthtoolStatsSource {
 public:
  explicit CountingEthtool(UnsupportedCounts* n) : n_(n) {}
  Result<EthtoolSnapshot> Read(const std::string& netdev) override {
    ++n_->ethtool;
    return Error::FromErrno(netdev, EOPNOTSUPP);
  }

 private:
  UnsupportedCounts* n_;
};
class CountingDcb : public DcbSource {
 public:
  explicit CountingDcb(UnsupportedCounts* n) : n_(n) {}
  Result<DcbInfo> Query(const std::string& netdev) override {
    ++n_->dcb;
    return Error::FromErrno(netdev, EOPNOTSUPP);
  }

 private:
  UnsupportedCounts* n_;
};

// What a driver lacks is asked once, not at every scrape.
TEST(RoceCollectorTest, UnsupportedOperationsAreNotAskedEveryScrape) {
  LogCapture log;
  UnsupportedCounts n;
  RoceSources src;
  src.sysfs = kRoot + "/sys";
  src.procfs = kRoot + "/proc";
  src.ethtool = std::make_unique<CountingEthtool>(&n);
  src.dcb = std::make_unique<CountingDcb>(&n);
  auto c = MakeRoceCollector(std::move(src));
  (void)Scrape(*c);
  const int ports = n.ethtool;
  ASSERT_GT(ports, 0);
  EXPECT_EQ(n.dcb, ports);
  for (int i = 0; i < 5; ++i) (void)Scrape(*c);
  EXPECT_EQ(n.ethtool, ports);
  EXPECT_EQ(n.dcb, ports);
  // Still exported: what the driver has (MTU).
  EXPECT_EQ(Value(Scrape(*c), "rnic_netdev_mtu_bytes", {{"netdev", "eth0"}}),
            1500);
}

TEST(RoceCollectorTest, EveryFamilyIsDocumented) {
  const CollectorSpec spec = MakeRoceCollectorSpec();
  EXPECT_EQ(spec.name, "roce");
  EXPECT_TRUE(spec.default_enabled);
  auto c = FixtureCollector(kRoot);
  MetricSet out;
  ASSERT_TRUE(c->Collect(Forever(), out).ok());
  std::set<std::string> emitted;
  const auto fams = out.families();
  rnic::testing::ExpectDeclared(spec, fams);
  for (const auto& f : fams) {
    emitted.insert(f.name);
    // Every series carries every declared label.
    const auto* d = rnic::testing::DeclarationOf(spec, f);
    ASSERT_NE(d, nullptr);
    for (const auto& m : f.metric) {
      std::string labels;
      for (const auto& l : m.label)
        labels += (labels.empty() ? "" : ",") + l.name;
      EXPECT_EQ(labels, d->labels) << f.name;
    }
  }
  // The fixture tree exercises every documented family.
  EXPECT_EQ(emitted.size(), spec.families.size());
}

TEST(RoceCollectorTest, VanishingNetdevCostsItsSeriesOnly) {
  const fs::path root = fs::path(::testing::TempDir()) /
                        ("rnic_roce_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::copy(kRoot, root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  auto c = FixtureCollector(root.string());
  auto before = Scrape(*c);
  EXPECT_GT(Count(before, "netdev", "enp129s0f0np0"), 50);
  fs::remove_all(root / "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/net");
  fs::remove(root / "ethtool/enp129s0f0np0");
  fs::remove(root / "dcb/enp129s0f0np0");
  auto after = Scrape(*c);
  EXPECT_EQ(Count(after, "netdev", "enp129s0f0np0"), 0);  // no zeros left
  EXPECT_EQ(Value(after, "rnic_irqs", {{"device", "mlx5_0"}}), 8);
  EXPECT_EQ(Value(after, "rnic_netdev_mtu_bytes", {{"netdev", "eth0"}}), 1500);
  fs::remove_all(root);
}

// The whole collector on the real kernel: a veth made in a fresh network
// namespace stands in for the RoCE netdev (real SIOCETHTOOL, real dcbnl).
TEST(RoceCollectorTest, RealKernelVeth) {
  rnic::testing::TestNetns ns;
  if (!ns.ok()) GTEST_SKIP() << "cannot create a network namespace";
  ASSERT_EQ(ns.Ip("link add va type veth peer name vb"), 0);
  const fs::path root = fs::path(::testing::TempDir()) /
                        ("rnic_roce_veth_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "class/infiniband/rxe9/ports/1");
  fs::create_directories(root / "class/net/va");
  std::ofstream(root / "class/infiniband/rxe9/parent") << "va\n";
  std::ofstream(root / "class/infiniband/rxe9/ports/1/link_layer")
      << "Ethernet\n";
  std::ofstream(root / "class/net/va/mtu") << "1500\n";
  LogCapture log;
  ASSERT_TRUE(ns.Enter());
  RoceSources src;
  src.sysfs = root.string();
  src.procfs = "/proc";
  auto c = MakeRoceCollector(std::move(src));  // real ioctl and dcbnl
  auto s = Scrape(*c);
  // veth has ethtool statistics but none of ours, and no DCB: only the MTU.
  std::set<std::string> families;
  for (const auto& x : s) families.insert(x.family);
  EXPECT_EQ(families, (std::set<std::string>{"rnic_netdev_mtu_bytes",
                                             "rnic_roce_mtu_4096_capable"}));
  EXPECT_EQ(log.Count("key=dcb/va"), 1);
  EXPECT_EQ(log.Count("Operation not supported"), 1);
  EXPECT_EQ(log.Count("key=ethtool/va"), 0);  // read fine
  // The netdev disappears: the scrape still succeeds, errors logged once.
  ASSERT_EQ(ns.Ip("link del va"), 0);
  s = Scrape(*c);
  (void)Scrape(*c);
  EXPECT_EQ(log.Count("key=ethtool/va"), 1);
  EXPECT_EQ(log.Count("No such device"), 2);  // ethtool and dcbnl
  ns.Leave();
  fs::remove_all(root);
}

}  // namespace
}  // namespace rnic
