// Golden test of one scrape of EVERY collector on one merged fixture tree
// (tests/fixtures/merged): sysfs, roce, perf, kmsg, pcie, carrier and
// port_health built by their specs' factories on the merged sysfs/procfs,
// expect on replayed DCB
// facts, the netlink collectors replaying a real kernel capture (rxe-live)
// with pod labels on, the probe on scripted statistics. All read
// one shared host::HostModel, run through the real CollectorRunner and are
// serialized by the exporter's serializer; the text is compared with
// tests/golden/all_collectors.prom.
//
// Update after an intended change:
//   RNIC_UPDATE_GOLDEN=1 build/tests/rnic_unit_tests
//   --gtest_filter='AllCollectorsGolden*'
// (one command line)
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/ethtool/ethtool_collector.h"
#include "collectors/fabric/fabric_collector.h"
#include "collectors/fabric/fabric_stats.h"
#include "collectors/health/expect_collector.h"
#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/nl/device_lister.h"
#include "collectors/nl/replay_transport.h"
#include "collectors/probe/probe_collector.h"
#include "collectors/probe/probe_stats.h"
#include "exporter/exposition.h"
#include "exporter/registry.h"
#include "tests/unit/family_check.h"

namespace rnic {
namespace {

namespace fs = std::filesystem;
const std::string kTree = RNIC_FIXTURES_DIR "/merged";
const std::string kCapture = RNIC_FIXTURES_DIR "/netlink/rxe-live";
const std::string kGolden = RNIC_SOURCE_DIR "/tests/golden/all_collectors.prom";

// Forwards to a collector and keeps a copy of what it emitted, so the test
// can check each collector's share of the merged scrape.
class Tee final : public Collector {
 public:
  Tee(std::unique_ptr<Collector> inner,
      std::vector<prometheus::MetricFamily>* seen)
      : inner_(std::move(inner)), seen_(seen) {}
  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    MetricSet mine;
    Status st = inner_->Collect(ctx, mine);
    *seen_ = mine.families();
    out.Merge(std::move(mine));
    return st;
  }

 private:
  std::unique_ptr<Collector> inner_;
  std::vector<prometheus::MetricFamily>* seen_;
};

const CollectorSpec& SpecOf(const std::string& name) {
  for (const auto& s : AllCollectors()) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << "no collector " << name;
  std::abort();
}

// What the fabric engine would have recorded for one pair to a peer.
std::shared_ptr<fabric::FabricStats> ScriptedFabricStats() {
  using probe::Operation;
  auto s = std::make_shared<fabric::FabricStats>();
  const fabric::PairKey k{"rxe0", "10.0.3.2", "rxe0"};
  const double rtts[] = {40e-6, 45e-6, 250e-6};
  s->RecordRtts(k, "", Operation::kSend, 64, rtts);
  s->RecordProbes(k, Operation::kSend, "ok", 3);
  s->RecordProbes(k, Operation::kWrite, "timeout");
  s->RecordCompletionError(k, Operation::kWrite,
                           probe::WcStatusName(IBV_WC_RETRY_EXC_ERR));
  s->RecordConnectFailure(k, "rejected");
  s->RecordConnected(k, 1700000000);
  s->RecordConnected(k, 1700000100);
  s->SetPeerUp(k, true);
  s->RecordExchangeFailure("10.0.3.3");
  s->SetPeers(2, 1);
  s->SetResponderConnections("rxe0", 1);
  s->RecordAccepted("rxe0");
  s->RecordRefused("rxe0", "not_in_peer_set");
  s->AddCpuSeconds(0.25);
  return s;
}

// What the probe engine would have recorded: every probe family once.
std::shared_ptr<probe::ProbeStats> ScriptedProbeStats() {
  using probe::Operation;
  auto s = std::make_shared<probe::ProbeStats>();
  const std::vector<double> lat = {1.5e-6, 2e-6, 3.3e-6, 40e-6};
  s->RecordLatencies("mlx5_0", 1, Operation::kWrite, 64, lat);
  s->RecordLatencies("rxe0", 1, Operation::kSend, 4096, lat);
  s->RecordTimeout("rxe0", 1, Operation::kRead, 4096);
  s->RecordCompletionError("rxe0", 1, Operation::kSend,
                           probe::WcStatusName(IBV_WC_RETRY_EXC_ERR));
  s->RecordRound("mlx5_0", 1, true);
  s->RecordRound("rxe0", 1, false);
  s->RecordRebuild("rxe0", 1);
  s->SetOperationSupported("rxe0", 1, Operation::kAtomicCmpSwap, false);
  s->RecordMr("mlx5_0", 4096, 20e-6, 10e-6);
  s->RecordAsyncEvent("rxe0", 1, "port_err");
  s->AddCpuSeconds(0.25);
  s->SetCpuBudget(0.01);
  s->AddBudgetDelay(0.5);
  s->SetQpCounterBound("mlx5_0", 1, true);
  s->SetQpCounterValues("mlx5_0", 1, {{"rx_read_requests", 7}});
  return s;
}

class AllCollectorsGoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("all_collectors_golden_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // kmsg starts at the end of the log: start it on an empty file and
    // append the records afterwards, as the kernel would log them.
    kmsg_path_ = (dir_ / "kmsg").string();
    std::ofstream(kmsg_path_).flush();
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string kmsg_path_;
};

std::unique_ptr<Collector> FromFactory(const std::string& name,
                                       const Paths& paths,
                                       const std::shared_ptr<SharedFacts>& sh,
                                       const std::string& config_yaml) {
  const CollectorSpec& spec = SpecOf(name);
  CollectorArgs args;
  args.paths = paths;
  auto opts = spec.ParseOptions();
  EXPECT_TRUE(opts.ok()) << name;
  args.options = std::move(opts).value();
  if (!config_yaml.empty()) args.config = YAML::Load(config_yaml);
  args.shared = sh;
  auto c = spec.factory(args);
  EXPECT_TRUE(c.ok()) << name << ": " << c.error().ToString();
  return std::move(c).value();
}

TEST_F(AllCollectorsGoldenTest, EveryCollectorOnTheMergedTree) {
  auto replay_or = nl::ReplayTransport::FromDirectory(kCapture);
  ASSERT_TRUE(replay_or.ok());
  auto replay =
      std::make_shared<nl::ReplayTransport>(std::move(replay_or).value());
  const nl::TransportOpener opener =
      [replay]() -> Result<std::shared_ptr<nl::NetlinkTransport>> {
    return std::shared_ptr<nl::NetlinkTransport>(replay);
  };

  Paths paths;
  paths.sysfs = kTree + "/sys";
  paths.procfs = kTree + "/proc";
  paths.devkmsg = kmsg_path_;
  auto shared = std::make_shared<SharedFacts>();
  shared->host = std::make_shared<host::HostModel>(
      host::HostModel::Options{paths.sysfs, nl::MakeDeviceLister(opener)});

  // In AllCollectors() order, as the exporter builds them.
  std::map<std::string, std::vector<prometheus::MetricFamily>> seen;
  std::vector<CollectorRunner::Entry> entries;
  auto add = [&](const std::string& name, std::unique_ptr<Collector> c) {
    ASSERT_NE(c, nullptr) << name;
    entries.push_back({name, std::make_unique<Tee>(std::move(c), &seen[name])});
  };
  {
    auto stat = std::make_unique<nl::NetlinkStatCollector>(
        opener,
        nl::NetlinkStatCollector::Options{.qp_counters = true,
                                          .procfs = paths.procfs},
        shared->host);
    const auto probe = stat->ProbeKernel();
    EXPECT_TRUE(probe.port_state && probe.hw_counters);
    shared->netlink_port_state = probe.port_state;
    shared->netlink_hw_counters = probe.hw_counters;
    add("netlink_stat", std::move(stat));
  }
  add("netlink_resource",
      std::make_unique<nl::NetlinkResourceCollector>(
          opener,
          nl::NetlinkResourceCollector::Options{
              .max_comms = 20, .procfs = paths.procfs, .pod_labels = true}));
  add("sysfs", FromFactory("sysfs", paths, shared, ""));
  add("roce", FromFactory("roce", paths, shared,
                          "{ethtool_stats_dir: " + kTree +
                              "/ethtool, dcb_dir: " + kTree + "/dcb}"));
  // Events on the fixture PMUs that fail before perf_event_open (unknown
  // event, unknown format term) and a PMU that is absent: the fixture's PMU
  // type numbers may name a real PMU on the test host, so no event here
  // is opened and the output does not depend on the machine.
  add("perf",
      FromFactory("perf", paths, shared,
                  "events: ["
                  "{pmu: uncore_iio_free_running_0, event: bw_out_port9},"
                  "{pmu: uncore_iio_0, event: 'event=0x83,bogus=1', "
                  "name: pcie_bogus},"
                  "{pmu: hns3_pmu_sicl_0, event: bw_ssu_egu_byte_num}]"));
  add("probe",
      std::make_unique<probe::ProbeCollector>(ScriptedProbeStats(), nullptr));
  add("fabric", std::make_unique<fabric::FabricCollector>(ScriptedFabricStats(),
                                                          nullptr, nullptr));
  add("kmsg", FromFactory("kmsg", paths, shared, ""));
  add("pcie", FromFactory("pcie", paths, shared, ""));
  add("carrier", FromFactory("carrier", paths, shared, ""));
  {
    // Built directly to replay the DCB facts (the factory asks dcbnl).
    auto expected = expect::ParseExpectConfig(YAML::Load(
        "- {device: ^mlx5_0$, active_ports: 1, link_layer: Ethernet, "
        "rate_gbps: 100, mtu: 9000, pfc_priorities: [3], trust: dscp, "
        "ecn_priority: 3, numa_local_irqs: true, firmware: 22.36.1010}\n"
        "- {device: ^rxe, mtu: 9000}\n"));
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    ExpectSources src;
    src.sysfs = paths.sysfs;
    src.procfs = paths.procfs;
    src.dcb = MakeFixtureDcbSource(kTree + "/dcb");
    add("expect",
        MakeExpectCollector(std::move(src), std::move(expected).value(),
                            shared->host));
  }
  // ethtool genl replayed (tests/fixtures/ethtool/replay-merged: FEC, stats
  // and a QSFP-DD on enp3s0f0np0; EOPNOTSUPP for the other netdevs), module
  // reads polled by hand below, stamped at a fixed time.
  ethtool::EthtoolCollector* ethtool_collector = nullptr;
  {
    const std::string dir = RNIC_FIXTURES_DIR "/ethtool/replay-merged";
    auto open = [&dir]() {
      auto r = nl::ReplayTransport::FromDirectory(dir);
      EXPECT_TRUE(r.ok());
      r->SetMissingErrno(EOPNOTSUPP);
      return std::make_unique<nl::ReplayTransport>(std::move(*r));
    };
    ethtool::Sources s;
    s.transport = open();
    std::shared_ptr<nl::NetlinkTransport> eeprom_transport = open();
    auto client = std::make_shared<ethtool::EthtoolNetlink>(
        std::move(ethtool::EthtoolNetlink::Open(*eeprom_transport)).value());
    s.eeprom = [eeprom_transport, client](std::string_view netdev,
                                          const ethtool::EepromWindow& w) {
      return client->ReadEeprom(netdev, w);
    };
    s.start_poller = false;
    s.module_faults = shared->module_faults;
    s.now = [] {
      return std::chrono::system_clock::time_point(
          std::chrono::seconds(1767225600));
    };
    auto c =
        std::make_unique<ethtool::EthtoolCollector>(std::move(s), shared->host);
    ethtool_collector = c.get();
    add("ethtool", std::move(c));
  }
  // A drop window far longer than this test: the DOWN ports stay unknown
  // (first seen down) whatever the time between scrapes.
  add("port_health",
      FromFactory("port_health", paths, shared, "{drop_window: 1h}"));
  // An A100 on a root port of mlx5_0's host bridge; no peer-memory module
  // directory in the tree (unknown), no IOMMU.
  add("gpu", FromFactory("gpu", paths, shared, ""));
  if (HasFatalFailure()) return;

  {
    std::ifstream records(kTree + "/kmsg.txt");
    std::ofstream log(kmsg_path_, std::ios::app);
    log << records.rdbuf();
  }
  const auto host = shared->host;
  CollectorRunner runner(std::move(entries), [host] { host->Refresh(); });
  const auto gather = [&] {
    return runner.Gather(std::chrono::steady_clock::now() +
                         std::chrono::minutes(5));
  };
  // The kmsg reader thread reads the appended records; wait (bounded) until
  // it has all five, then take the scrape the golden records.
  const auto kmsg_records = [&] {
    for (const auto& f : seen["kmsg"]) {
      if (f.name == "rnic_kernel_log_records_total" && !f.metric.empty()) {
        return f.metric[0].counter.value;
      }
    }
    return 0.0;
  };
  MetricSet scrape = gather();
  ethtool_collector->poller()->PollOnce();  // the netdevs of that scrape
  scrape = gather();
  for (int i = 0; i < 1000 && kmsg_records() < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    scrape = gather();
  }
  ASSERT_EQ(kmsg_records(), 5) << "kmsg reader did not read the records";

  // Every collector succeeded, contributed series, and emitted only
  // declared families.
  for (const auto& spec : AllCollectors()) {
    SCOPED_TRACE(spec.name);
    ASSERT_TRUE(seen.contains(spec.name)) << "collector not in the golden";
    std::size_t series = 0;
    for (const auto& f : seen[spec.name]) series += f.metric.size();
    EXPECT_GT(series, 0u) << spec.name << " emitted nothing";
    testing::ExpectDeclared(spec, seen[spec.name]);
  }
  std::set<std::string> succeeded;
  for (const auto& f : scrape.families()) {
    if (f.name != "rnic_scrape_collector_success") continue;
    for (const auto& m : f.metric) {
      EXPECT_EQ(m.gauge.value, 1) << LabelValue(m, "collector");
      succeeded.emplace(LabelValue(m, "collector"));
    }
  }
  EXPECT_EQ(succeeded.size(), AllCollectors().size());

  std::string text;
  Serialize(scrape, ExpositionFormat::kText004, text);
  // Durations change from run to run.
  std::string stable;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("rnic_scrape_collector_duration_seconds") !=
        std::string::npos) {
      continue;
    }
    stable += line + "\n";
  }

  if (std::getenv("RNIC_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGolden) << stable;
  }
  std::ifstream in(kGolden);
  ASSERT_TRUE(in.good()) << "missing " << kGolden;
  std::stringstream want_ss;
  want_ss << in.rdbuf();
  const std::string want = want_ss.str();
  if (want != stable) {
    // The first differing line, not two whole expositions.
    std::istringstream a(want), b(stable);
    std::string la, lb;
    int n = 1;
    while (true) {
      const bool ga = static_cast<bool>(std::getline(a, la));
      const bool gb = static_cast<bool>(std::getline(b, lb));
      if (!ga && !gb) break;
      if (!ga || !gb || la != lb) {
        ADD_FAILURE() << kGolden << " line " << n
                      << "\n  golden: " << (ga ? la : "<end>")
                      << "\n  actual: " << (gb ? lb : "<end>")
                      << "\nIf intended: RNIC_UPDATE_GOLDEN=1 "
                         "build/tests/rnic_unit_tests "
                         "--gtest_filter='AllCollectorsGolden*'";
        break;
      }
      ++n;
    }
  }
}

}  // namespace
}  // namespace rnic
