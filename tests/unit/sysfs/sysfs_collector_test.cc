#include "collectors/sysfs/sysfs_collector.h"

#include <gtest/gtest.h>

#include "tests/unit/family_check.h"

#include <cerrno>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/metrics/hw_counters.h"
#include "sysfs_test_util.h"

namespace rnic::sysfs {
namespace {

using testing::FamilyNames;
using testing::FindFamily;
using testing::FindSample;
using testing::FixtureSysfs;
using testing::LabelMap;
using testing::SampleLabels;
using testing::ScratchSysfs;

constexpr double k2to32 = 4294967296.0;

std::vector<prometheus::MetricFamily> Scrape(SysfsCollector& c) {
  MetricSet out;
  const Status st = c.Collect(ScrapeContext{}, out);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  return std::move(out).Take();
}

std::vector<prometheus::MetricFamily> ScrapeFixture(CollectorOptions o = {}) {
  SysfsCollector c(FixtureSysfs(), std::move(o));
  return Scrape(c);
}

LabelMap P(const std::string& dev, const std::string& port = "1") {
  return {{"device", dev}, {"port", port}};
}
LabelMap D(const std::string& dev) { return {{"device", dev}}; }
LabelMap Sat(const std::string& dev, const std::string& port,
             const std::string& counter) {
  return {{"device", dev}, {"port", port}, {"counter", counter}};
}

// Families that carry a sample for `device`.
std::set<std::string> FamiliesOf(
    const std::vector<prometheus::MetricFamily>& fams, const std::string& dev) {
  std::set<std::string> out;
  for (const auto& f : fams) {
    for (const auto& m : f.metric) {
      if (LabelValue(m, "device") == dev) out.insert(f.name);
    }
  }
  return out;
}

TEST(SysfsCollectorTest, Mlx5RocePf) {
  const auto fams = ScrapeFixture();
  EXPECT_EQ(FindSample(fams, "rnic_device_info",
                       {{"device", "mlx5_0"},
                        {"node_type", "CA"},
                        {"firmware_version", "22.36.1010"},
                        {"board_id", "MT_0000000359"},
                        {"hca_type", "MT4125"},
                        {"node_guid", "b83f:d203:00a1:b2c4"},
                        {"sys_image_guid", "b83f:d203:00a1:b2c4"},
                        {"driver", "mlx5_core"},
                        {"pci_address", "0000:03:00.0"},
                        {"numa_node", "0"}}),
            1.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_info",
                       {{"device", "mlx5_0"},
                        {"port", "1"},
                        {"link_layer", "Ethernet"},
                        {"netdev", "enp3s0f0np0"}}),
            1.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_state", P("mlx5_0")), 4.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_physical_state", P("mlx5_0")), 5.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_rate_bytes_per_second", P("mlx5_0")),
            12.5e9);
  EXPECT_FALSE(FindSample(fams, "rnic_port_lid", P("mlx5_0")));
  // PMA data in bytes: 4-octet units times 4; extended set, so 64-bit and
  // no saturation flag for data.
  EXPECT_EQ(
      FindSample(fams, "rnic_port_transmit_data_bytes_total", P("mlx5_0")),
      19478234712853.0 * 4);
  EXPECT_EQ(
      FindSample(fams, "rnic_port_unicast_receive_packets_total", P("mlx5_0")),
      34123222111.0);
  EXPECT_FALSE(FindSample(fams, "rnic_port_pma_saturated",
                          Sat("mlx5_0", "1", "port_xmit_data")));
  EXPECT_EQ(FindSample(fams, "rnic_port_pma_saturated",
                       Sat("mlx5_0", "1", "symbol_error")),
            0.0);
  // Port and device-level hw counters.
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            4294966000.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", D("mlx5_0")),
            2147483000.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_np_cnp_sent_total", P("mlx5_0")),
            917011.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_counters_lifespan_seconds", P("mlx5_0")),
            0.01);
  EXPECT_EQ(FindSample(fams, "rnic_hw_counters_lifespan_seconds", D("mlx5_0")),
            0.01);
  const auto* f = FindFamily(fams, "rnic_hw_local_ack_timeout_err_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, prometheus::MetricType::Counter);
  EXPECT_EQ(f->help, std::string(HwCounterHelp("local_ack_timeout_err")));
}

TEST(SysfsCollectorTest, Mlx5InfiniBandPrefersCountersExt) {
  const auto fams = ScrapeFixture();
  // counters/port_xmit_data is 4294967295 (32-bit, saturated): the 64-bit
  // counters_ext/port_xmit_data_64 replaces it.
  EXPECT_EQ(
      FindSample(fams, "rnic_port_transmit_data_bytes_total", P("mlx5_1")),
      7652345187652.0 * 4);
  EXPECT_EQ(FindSample(fams, "rnic_port_receive_packets_total", P("mlx5_1")),
            9876543210.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_multicast_transmit_packets_total",
                       P("mlx5_1")),
            567890.0);
  EXPECT_FALSE(FindSample(fams, "rnic_port_pma_saturated",
                          Sat("mlx5_1", "1", "port_xmit_data")));
  EXPECT_EQ(FindSample(fams, "rnic_port_pma_saturated",
                       Sat("mlx5_1", "1", "port_xmit_wait")),
            0.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_transmit_wait_total", P("mlx5_1")),
            3862941.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_lid", P("mlx5_1")), 26.0);
  EXPECT_EQ(SampleLabels(fams, "rnic_port_transmit_data_bytes_total").size(),
            // mlx5_0, mlx5_1, mlx4_0 x2, hfi1_0: one series each
            5u);
  for (const auto& name : FamiliesOf(fams, "mlx5_1")) {
    EXPECT_FALSE(name.starts_with("rnic_hw_")) << name;
  }
}

TEST(SysfsCollectorTest, Mlx4SaturatedPmaCounters) {
  const auto fams = ScrapeFixture();
  for (const char* c :
       {"symbol_error", "link_error_recovery", "port_rcv_errors",
        "local_link_integrity_errors", "port_xmit_wait", "port_xmit_data",
        "port_xmit_packets"}) {
    EXPECT_EQ(
        FindSample(fams, "rnic_port_pma_saturated", Sat("mlx4_0", "1", c)), 1.0)
        << c;
  }
  for (const char* c : {"link_downed", "port_rcv_data", "port_xmit_discards",
                        "excessive_buffer_overrun_errors", "VL15_dropped"}) {
    EXPECT_EQ(
        FindSample(fams, "rnic_port_pma_saturated", Sat("mlx4_0", "1", c)), 0.0)
        << c;
  }
  // The value is still exported as read: the flag says it is stuck.
  EXPECT_EQ(FindSample(fams, "rnic_port_symbol_errors_total", P("mlx4_0")),
            65535.0);
  EXPECT_EQ(
      FindSample(fams, "rnic_port_transmit_data_bytes_total", P("mlx4_0")),
      4294967295.0 * 4);
  EXPECT_EQ(FindSample(fams, "rnic_port_state", P("mlx4_0", "2")), 1.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_physical_state", P("mlx4_0", "2")),
            3.0);
  EXPECT_EQ(
      FindSample(fams, "rnic_port_rate_bytes_per_second", P("mlx4_0", "2")),
      1.25e9);
  EXPECT_EQ(FindSample(fams, "rnic_port_pma_saturated",
                       Sat("mlx4_0", "2", "symbol_error")),
            0.0);
}

TEST(SysfsCollectorTest, I40iwNoPmaExportsNoZeros) {
  const auto fams = ScrapeFixture();
  for (const auto& name : FamiliesOf(fams, "i40iw0")) {
    EXPECT_FALSE(name.starts_with("rnic_port_") && name.ends_with("_total"))
        << name << " exported for a device whose counters read N/A";
    EXPECT_NE(name, "rnic_port_pma_saturated");
  }
  EXPECT_EQ(FindSample(fams, "rnic_hw_tcp_retrans_segs_total", P("i40iw0")),
            1093.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_state", P("i40iw0")), 4.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_rate_bytes_per_second", P("i40iw0")),
            1.25e9);
}

TEST(SysfsCollectorTest, BnxtReWithoutCountersDir) {
  const auto fams = ScrapeFixture();
  EXPECT_FALSE(
      FindSample(fams, "rnic_port_transmit_data_bytes_total", P("bnxt_re0")));
  EXPECT_EQ(FindSample(fams, "rnic_hw_dup_req_total", P("bnxt_re0")), 21.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_rx_ecn_marked_pkts_total", P("bnxt_re0")),
            6802.0);
  // Levels are gauges without _total.
  const auto* f = FindFamily(fams, "rnic_hw_active_qps");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, prometheus::MetricType::Gauge);
  EXPECT_EQ(FindSample(fams, "rnic_hw_active_qps", P("bnxt_re0")), 18.0);
  EXPECT_FALSE(FindFamily(fams, "rnic_hw_active_qps_total"));
}

TEST(SysfsCollectorTest, EfaRenamedDevice) {
  const auto fams = ScrapeFixture();
  EXPECT_EQ(FindSample(fams, "rnic_hw_submitted_cmds_total", D("rdmap0s6")),
            4521.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_retrans_pkts_total", P("rdmap0s6")),
            41.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_tx_bytes_total", P("rdmap0s6")),
            5123456789012.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_info",
                       {{"device", "rdmap0s6"},
                        {"port", "1"},
                        {"link_layer", "Unknown"},
                        {"netdev", ""}}),
            1.0);
  const auto labels = SampleLabels(fams, "rnic_device_info");
  bool found = false;
  for (const auto& l : labels) {
    if (l.at("device") == "rdmap0s6") {
      found = true;
      EXPECT_EQ(l.at("driver"), "efa");
      EXPECT_EQ(l.at("node_type"), "unspecified");
    }
  }
  EXPECT_TRUE(found);
}

TEST(SysfsCollectorTest, Hfi1SanitizedAndUnknownNames) {
  const auto fams = ScrapeFixture();
  EXPECT_EQ(FindSample(fams, "rnic_hw_rcv_overflow_32_total", D("hfi1_0")),
            0.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_dc_xmit_flits_total", D("hfi1_0")),
            2345678901234.0);
  // A name the table does not know is exported with the generic HELP.
  const auto* f = FindFamily(fams, "rnic_hw_pio_reserved_31_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->help, std::string(kHwCounterGenericHelp));
  EXPECT_EQ(FindSample(fams, "rnic_hw_driver_ctxts_open", D("hfi1_0")), 5.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_tx_wait_total", P("hfi1_0")), 1234.0);
  EXPECT_EQ(
      FindSample(fams, "rnic_port_transmit_data_bytes_total", P("hfi1_0")),
      2345678901234.0 * 4);
}

TEST(SysfsCollectorTest, RxeFromVmCapture) {
  const auto fams = ScrapeFixture();
  EXPECT_EQ(FindSample(fams, "rnic_hw_sent_pkts_total", P("rxe0")), 146646.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_duplicate_request_total", P("rxe0")),
            1768.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_rdma_sends_total", P("rxe1")), 0.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_counters_lifespan_seconds", P("rxe0")),
            0.012);
  EXPECT_EQ(FindSample(fams, "rnic_port_rate_bytes_per_second", P("rxe1")),
            312500000.0);
  EXPECT_EQ(FindSample(fams, "rnic_port_info",
                       {{"device", "rxe1"},
                        {"port", "1"},
                        {"link_layer", "Ethernet"},
                        {"netdev", "dummy0"}}),
            1.0);
  for (const auto& name : FamiliesOf(fams, "rxe0")) {
    EXPECT_NE(name, "rnic_port_pma_saturated");  // no PMA on rxe
  }
}

// Every family matches one declaration of the spec, with its type, HELP and
// labels; every series names its device.
TEST(SysfsCollectorTest, OutputMatchesSpecDeclarations) {
  const CollectorSpec spec = MakeSysfsCollectorSpec();
  const auto fams = ScrapeFixture();
  ASSERT_FALSE(fams.empty());
  rnic::testing::ExpectDeclared(spec, fams);
  for (const auto& f : fams) {
    for (char ch : f.name) {
      EXPECT_TRUE((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                  ch == '_')
          << f.name;
    }
    for (const auto& m : f.metric) {
      EXPECT_FALSE(LabelValue(m, "device").empty()) << f.name;
    }
  }
}

TEST(SysfsCollectorTest, NoDuplicateSeries) {
  const auto fams = ScrapeFixture();
  std::set<std::string> names;
  for (const auto& f : fams) {
    EXPECT_TRUE(names.insert(f.name).second) << "family twice: " << f.name;
    std::set<LabelMap> seen;
    for (const auto& lm : SampleLabels(fams, f.name)) {
      EXPECT_TRUE(seen.insert(lm).second) << "duplicate series in " << f.name;
    }
  }
}

TEST(SysfsCollectorTest, WrapExtensionAcrossScrapes) {
  ScratchSysfs tree;
  SysfsCollector c(tree.root(), {});
  auto fams = Scrape(c);
  ASSERT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            4294966000.0);
  tree.Write("mlx5_0/ports/1/hw_counters/out_of_buffer", "1000\n");
  fams = Scrape(c);
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            k2to32 + 1000);
  tree.Write("mlx5_0/ports/1/hw_counters/out_of_buffer", "4294000000\n");
  fams = Scrape(c);
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            k2to32 + 4294000000.0);
  tree.Write("mlx5_0/ports/1/hw_counters/out_of_buffer", "77\n");
  fams = Scrape(c);
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            2 * k2to32 + 77);
  // The device-level counter of the same name has its own state.
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", D("mlx5_0")),
            2147483000.0);
  // 64-bit counters are never extended: a decrease is a reset.
  tree.Write("mlx5_0/ports/1/hw_counters/np_cnp_sent", "5\n");
  fams = Scrape(c);
  EXPECT_EQ(FindSample(fams, "rnic_hw_np_cnp_sent_total", P("mlx5_0")), 5.0);
}

TEST(SysfsCollectorTest, RecreatedDeviceStartsFresh) {
  ScratchSysfs tree;
  SysfsCollector c(tree.root(), {});
  (void)Scrape(c);
  tree.Write("mlx5_0/ports/1/hw_counters/out_of_buffer", "1000\n");
  auto fams = Scrape(c);
  ASSERT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            k2to32 + 1000);
  // Driver reload: the device directory is replaced.
  const auto dir = std::filesystem::canonical(tree.ib("mlx5_0"));
  const auto saved = dir.parent_path() / "mlx5_0.saved";
  std::filesystem::rename(dir, saved);
  std::filesystem::copy(saved, dir,
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::copy_symlinks);
  std::filesystem::remove_all(saved);
  tree.Write("mlx5_0/ports/1/hw_counters/out_of_buffer", "1200\n");
  fams = Scrape(c);
  EXPECT_EQ(FindSample(fams, "rnic_hw_out_of_buffer_total", P("mlx5_0")),
            1200.0);
}

TEST(SysfsCollectorTest, UnreadableValueIsAbsentNotZero) {
  CollectorOptions o;
  SysfsCollector c(FixtureSysfs(), o,
                   [](int fd, std::string_view dir, const char* name, char* buf,
                      std::size_t cap) -> long {
                     if (dir == "mlx5_0/ports/1" &&
                         std::string_view(name) == "hw_counters/np_cnp_sent") {
                       return -EINVAL;
                     }
                     if (dir == "mlx5_1/ports/1" &&
                         std::string_view(name) == "counters/symbol_error") {
                       return -EACCES;
                     }
                     return ReadFileAt(fd, dir, name, buf, cap);
                   });
  for (int i = 0; i < 2; ++i) {
    const auto fams = Scrape(c);
    EXPECT_FALSE(FindSample(fams, "rnic_hw_np_cnp_sent_total", P("mlx5_0")));
    EXPECT_TRUE(FindSample(fams, "rnic_hw_np_cnp_sent_total", D("mlx5_0")));
    EXPECT_FALSE(
        FindSample(fams, "rnic_port_symbol_errors_total", P("mlx5_1")));
    EXPECT_FALSE(FindSample(fams, "rnic_port_pma_saturated",
                            Sat("mlx5_1", "1", "symbol_error")));
    EXPECT_TRUE(FindSample(fams, "rnic_port_symbol_errors_total", P("mlx5_0")));
  }
}

TEST(SysfsCollectorTest, IncludeExclude) {
  CollectorOptions o;
  o.devices = DeviceFilter(CompiledRegex::Compile("^mlx").value(),
                           CompiledRegex::Compile("_1$").value());
  SysfsCollector c(FixtureSysfs(), o);
  EXPECT_TRUE(c.Accepts("mlx5_0"));
  EXPECT_FALSE(c.Accepts("mlx5_1"));
  EXPECT_FALSE(c.Accepts("rxe0"));
  const auto fams = Scrape(c);
  std::set<std::string> devices;
  for (const auto& f : fams) {
    for (const auto& m : f.metric)
      devices.insert(std::string(LabelValue(m, "device")));
  }
  EXPECT_EQ(devices, (std::set<std::string>{"mlx4_0", "mlx5_0"}));
}

TEST(SysfsCollectorTest, ExcludeOnlyIsUnanchored) {
  CollectorOptions o;
  o.devices = DeviceFilter({}, CompiledRegex::Compile("rxe").value());
  SysfsCollector c(FixtureSysfs(), o);
  const auto fams = Scrape(c);
  EXPECT_TRUE(FamiliesOf(fams, "rxe0").empty());
  EXPECT_TRUE(FamiliesOf(fams, "rxe1").empty());
  EXPECT_FALSE(FamiliesOf(fams, "rdmap0s6").empty());
}

TEST(SysfsCollectorTest, FactoryOptionsAndInvalidRegex) {
  const CollectorSpec spec = MakeSysfsCollectorSpec();
  EXPECT_EQ(spec.name, "sysfs");
  CollectorArgs args;
  args.paths.sysfs = FixtureSysfs();
  args.options = spec.ParseOptions({{"device-include", "^rxe"}}).value();
  auto ok = spec.factory(args);
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  MetricSet out;
  ASSERT_TRUE(ok.value()->Collect(ScrapeContext{}, out).ok());
  const auto fams = std::move(out).Take();
  EXPECT_FALSE(FamiliesOf(fams, "rxe0").empty());
  EXPECT_TRUE(FamiliesOf(fams, "mlx5_0").empty());

  // Invalid patterns are refused when the options are parsed, before any
  // factory runs.
  auto bad = spec.ParseOptions({{"device-include", "mlx5_(["}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--collector.sysfs.device-include"),
            std::string::npos)
      << bad.error().message;
  bad = spec.ParseOptions({{"device-exclude", "*"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--collector.sysfs.device-exclude"),
            std::string::npos);
}

TEST(SysfsCollectorTest, NetlinkSharedFactsSkipStateAndHwCounters) {
  auto shared = std::make_shared<SharedFacts>();
  CollectorOptions o;
  o.shared = shared;
  SysfsCollector c(FixtureSysfs(), o);
  auto fams = Scrape(c);
  ASSERT_TRUE(FindFamily(fams, "rnic_port_state"));
  ASSERT_TRUE(FindFamily(fams, "rnic_hw_sent_pkts_total"));

  shared->netlink_port_state = true;
  fams = Scrape(c);
  EXPECT_FALSE(FindFamily(fams, "rnic_port_state"));
  EXPECT_FALSE(FindFamily(fams, "rnic_port_physical_state"));
  EXPECT_TRUE(FindFamily(fams, "rnic_port_rate_bytes_per_second"));
  EXPECT_TRUE(FindFamily(fams, "rnic_hw_sent_pkts_total"));

  shared->netlink_hw_counters = true;
  fams = Scrape(c);
  // Port hw counters are left to netlink; device-level ones (no port label)
  // stay, because RDMA netlink STAT_GET reports per port only.
  for (const auto& f : fams) {
    if (!f.name.starts_with("rnic_hw_") ||
        f.name == "rnic_hw_counters_lifespan_seconds") {
      continue;
    }
    for (const auto& m : f.metric) {
      EXPECT_TRUE(LabelValue(m, "port").empty()) << f.name;
    }
  }
  EXPECT_EQ(FindSample(fams, "rnic_hw_alloc_pd_err_total", D("rdmap0s6")), 0.0);
  // Not a netlink statistic: stays.
  EXPECT_EQ(FindSample(fams, "rnic_hw_counters_lifespan_seconds", P("rxe0")),
            0.012);
  EXPECT_TRUE(FindFamily(fams, "rnic_port_transmit_data_bytes_total"));
}

TEST(SysfsCollectorTest, Wide32BitDataCounterIsNotSaturated) {
  // Without unicast_* files the data counters are assumed 32-bit; a value
  // above 2^32-1 shows the PMA is wider (IETF-less extended set).
  ScratchSysfs tree;
  tree.Write("mlx4_0/ports/1/counters/port_xmit_data", "5000000000\n");
  SysfsCollector c(tree.root(), {});
  const auto fams = Scrape(c);
  EXPECT_EQ(
      FindSample(fams, "rnic_port_transmit_data_bytes_total", P("mlx4_0")),
      5000000000.0 * 4);
  EXPECT_FALSE(FindSample(fams, "rnic_port_pma_saturated",
                          Sat("mlx4_0", "1", "port_xmit_data")));
}

TEST(SysfsCollectorTest, UnknownNamesAreNeverDropped) {
  ScratchSysfs tree;
  tree.Write("mlx4_0/ports/1/counters/port_rcv_discards", "12\n");
  tree.Write("rxe0/ports/1/hw_counters/new_counter", "3\n");
  // Two kernel names that sanitize to one metric name: the first is kept.
  tree.Write("rxe0/ports/1/hw_counters/odd,name", "1\n");
  tree.Write("rxe0/ports/1/hw_counters/odd_name", "2\n");
  SysfsCollector c(tree.root(), {});
  const auto fams = Scrape(c);
  EXPECT_EQ(
      FindSample(fams, "rnic_port_pma_port_rcv_discards_total", P("mlx4_0")),
      12.0);
  EXPECT_EQ(FindSample(fams, "rnic_hw_new_counter_total", P("rxe0")), 3.0);
  const auto* f = FindFamily(fams, "rnic_hw_new_counter_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->help, std::string(kHwCounterGenericHelp));
  EXPECT_EQ(SampleLabels(fams, "rnic_hw_odd_name_total").size(), 1u);
  EXPECT_EQ(FindSample(fams, "rnic_hw_odd_name_total", P("rxe0")), 1.0);
}

TEST(SysfsCollectorTest, RegisteredInCollectorTable) {
  bool found = false;
  for (const CollectorSpec& s : AllCollectors()) {
    if (s.name == "sysfs") found = true;
  }
  EXPECT_TRUE(found);
}

TEST(SysfsCollectorTest, NoDevicesIsSuccessWithNoFamilies) {
  ScratchSysfs tree;
  std::filesystem::remove_all(tree.root() + "/class/infiniband");
  SysfsCollector c(tree.root(), {});
  EXPECT_TRUE(Scrape(c).empty());
}

}  // namespace
}  // namespace rnic::sysfs
