#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "collectors/health/expect_collector.h"
#include "collectors/health/expect_config.h"
#include "tests/unit/family_check.h"
#include "tests/unit/health/scrape_util.h"

namespace rnic {
namespace {

using testing::ScrapeFlat;
using testing::ValueOf;

const std::string kRoot = RNIC_FIXTURES_DIR "/health";

Result<std::vector<expect::Entry>> Parse(const std::string& yaml) {
  return expect::ParseExpectConfig(YAML::Load(yaml));
}

std::string ErrorOf(const std::string& yaml) {
  auto r = Parse(yaml);
  EXPECT_FALSE(r.ok()) << yaml;
  return r.ok() ? "" : r.error().message;
}

TEST(ExpectConfigTest, EveryCheckParsedWithCanonicalExpectedText) {
  auto r = Parse(
      "- device: ^mlx5_\n"
      "  firmware: 22.36.1010\n"  // written in another order than kept
      "  active_ports: 2\n"
      "  link_layer: Ethernet\n"
      "  rate_gbps: 200\n"
      "  mtu: 9000\n"
      "  pfc_priorities: [4, 3]\n"
      "  trust: dscp\n"
      "  ecn_priority: 3\n"
      "  numa_local_irqs: true\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  const auto& checks = (*r)[0].checks;
  ASSERT_EQ(checks.size(), 9u);
  EXPECT_EQ(expect::CheckName(checks[0].kind), "active_ports");
  EXPECT_EQ(checks[0].expected, "2");
  EXPECT_EQ(checks[4].expected, "3,4");
  EXPECT_EQ(checks[4].pfc_mask, 0x18);
  EXPECT_EQ(expect::CheckName(checks[8].kind), "firmware");
  EXPECT_EQ(checks[8].expected, "22.36.1010");
  EXPECT_TRUE((*r)[0].device.Search("mlx5_3"));
  EXPECT_FALSE((*r)[0].device.Search("irdma0"));
}

TEST(ExpectConfigTest, EmptyPfcListMeansNone) {
  auto r = Parse("[{device: x, pfc_priorities: []}]");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].checks[0].expected, "none");
  EXPECT_EQ((*r)[0].checks[0].pfc_mask, 0);
}

TEST(ExpectConfigTest, NullSectionHasNoEntries) {
  auto r = expect::ParseExpectConfig(YAML::Node());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST(ExpectConfigTest, ErrorsNameEntryAndKey) {
  EXPECT_NE(ErrorOf("{device: x}").find("expect: must be a list"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("[{device: x, mtuu: 9000}]"),
            "expect[0].mtuu: unknown key");
  EXPECT_EQ(ErrorOf("[{mtu: 9000}]"), "expect[0]: needs a device");
  EXPECT_EQ(ErrorOf("[{device: '', mtu: 9000}]"),
            "expect[0].device: must be a regex of device names");
  EXPECT_NE(ErrorOf("[{device: '(', mtu: 9000}]").find("expect[0].device: "),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{device: x, mtu: 9000}, {device: y, mtu: 12}]")
                .find("expect[1].mtu: must be between 68 and 65535"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{device: x, mtu: big}]")
                .find("expect[0].mtu: must be "
                      "an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{device: x, pfc_priorities: 3}]")
                .find("expect[0].pfc_priorities: must be a list"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{device: x, pfc_priorities: [8]}]")
                .find("expect[0].pfc_priorities: priorities must be between"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("[{device: x, trust: l2}]"),
            "expect[0].trust: must be dscp or pcp");
  EXPECT_EQ(ErrorOf("[{device: x, numa_local_irqs: yes}]"),
            "expect[0].numa_local_irqs: must be true or false");
  EXPECT_NE(ErrorOf("[{device: x, rate_gbps: -1}]")
                .find("expect[0].rate_gbps: must be a positive number"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{device: x}]").find("expect[0]: no check given"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("[[1, 2]]"), "expect[0]: must be a map");
  EXPECT_EQ(ErrorOf("[{device: x, mtu: 9000, mtu: 1500}]"),
            "expect[0].mtu: given twice");
}

std::unique_ptr<Collector> Make(const std::string& yaml) {
  auto entries = Parse(yaml);
  EXPECT_TRUE(entries.ok()) << entries.error().message;
  ExpectSources src;
  src.sysfs = kRoot + "/sys";
  src.procfs = kRoot + "/proc";
  src.dcb = MakeFixtureDcbSource(kRoot + "/dcb");
  return MakeExpectCollector(std::move(src), std::move(entries).value());
}

TEST(ExpectCollectorTest, EveryCheckHoldsOnATunedPort) {
  auto c = Make(
      "- device: ^mlx5_0$\n"
      "  active_ports: 1\n"
      "  link_layer: Ethernet\n"
      "  rate_gbps: 100\n"
      "  mtu: 9000\n"
      "  pfc_priorities: [3]\n"
      "  trust: dscp\n"
      "  ecn_priority: 3\n"
      "  numa_local_irqs: true\n"
      "  firmware: 22.36.1010\n");
  std::vector<prometheus::MetricFamily> fams;
  const auto s = ScrapeFlat(*c, &fams);
  testing::ExpectDeclared(MakeExpectCollectorSpec(), fams);
  ASSERT_EQ(s.size(), 9u);
  for (const auto& x : s) {
    EXPECT_EQ(x.value, 1) << x.labels.at("check");
    EXPECT_EQ(x.labels.at("device"), "mlx5_0");
    // Device-level checks carry no port label; the rest port 1.
    const std::string& check = x.labels.at("check");
    const bool device_level = check == "active_ports" ||
                              check == "numa_local_irqs" || check == "firmware";
    EXPECT_EQ(x.labels.contains("port"), !device_level) << check;
  }
  EXPECT_EQ(ValueOf(s, "rnic_expect_check_ok",
                    {{"check", "rate_gbps"}, {"expected", "100"}}),
            1);
}

TEST(ExpectCollectorTest, DriftAndUnreadableFactsReadZero) {
  auto c = Make(
      "- device: irdma\n"
      "  active_ports: 1\n"        // port DOWN
      "  rate_gbps: 25\n"          // holds
      "  mtu: 9000\n"              // 1500
      "  pfc_priorities: [3]\n"    // no dcbnl: unreadable
      "  ecn_priority: 3\n"        // no ECN files: unreadable
      "  numa_local_irqs: true\n"  // IRQ 131 may run on node 0
      "- device: mlx5\n"
      "  trust: pcp\n"
      "  firmware: 22.39.1002\n"
      "  link_layer: InfiniBand\n");
  const auto s = ScrapeFlat(*c);
  auto v = [&](const std::string& dev, const std::string& check) {
    return ValueOf(s, "rnic_expect_check_ok",
                   {{"device", dev}, {"check", check}});
  };
  EXPECT_EQ(v("irdma0", "active_ports"), 0);
  EXPECT_EQ(v("irdma0", "rate_gbps"), 1);
  EXPECT_EQ(v("irdma0", "mtu"), 0);
  EXPECT_EQ(v("irdma0", "pfc_priorities"), 0);
  EXPECT_EQ(v("irdma0", "ecn_priority"), 0);
  EXPECT_EQ(v("irdma0", "numa_local_irqs"), 0);
  // mlx5_0 trusts dscp (8 DSCP APP entries), the VF pcp.
  EXPECT_EQ(v("mlx5_0", "trust"), 0);
  EXPECT_EQ(v("mlx5_2", "trust"), 1);
  EXPECT_EQ(v("mlx5_0", "firmware"), 0);
  EXPECT_EQ(v("mlx5_2", "link_layer"), 0);
  EXPECT_EQ(ValueOf(s, "rnic_expect_check_ok",
                    {{"device", "mlx5_2"},
                     {"check", "firmware"},
                     {"expected", "22.39.1002"}}),
            0);
  // hfi1_0 matches no entry.
  EXPECT_FALSE(v("hfi1_0", "firmware"));
}

TEST(ExpectCollectorTest, FirstMatchingEntryWins) {
  auto c = Make(
      "- {device: mlx5_0, mtu: 9000}\n"
      "- {device: mlx5, mtu: 1500}\n");
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(ValueOf(s, "rnic_expect_check_ok",
                    {{"device", "mlx5_0"}, {"check", "mtu"}}),
            1);
  EXPECT_EQ(ValueOf(s, "rnic_expect_check_ok",
                    {{"device", "mlx5_2"}, {"check", "mtu"}}),
            1);
  EXPECT_EQ(s.size(), 2u);
}

TEST(ExpectCollectorTest, NetdevChecksSkipInfinibandPorts) {
  auto c = Make("- {device: hfi1, mtu: 4096, link_layer: InfiniBand}\n");
  const auto s = ScrapeFlat(*c);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].labels.at("check"), "link_layer");
  EXPECT_EQ(s[0].value, 1);
}

TEST(ExpectCollectorTest, NoSectionNoSeries) {
  auto c = Make("[]");
  EXPECT_TRUE(ScrapeFlat(*c).empty());
}

// gpudirect on the gpu collector's fixture hosts (tests/fixtures/gpu).
std::unique_ptr<Collector> OnGpuHost(const std::string& host,
                                     const std::string& yaml) {
  auto entries = Parse(yaml);
  EXPECT_TRUE(entries.ok()) << entries.error().message;
  ExpectSources src;
  src.sysfs = std::string(RNIC_FIXTURES_DIR "/gpu/") + host + "/sys";
  src.procfs = std::string(RNIC_FIXTURES_DIR "/gpu/") + host + "/proc";
  src.dcb = MakeFixtureDcbSource(kRoot + "/dcb");
  return MakeExpectCollector(std::move(src), std::move(entries).value());
}

TEST(ExpectCollectorTest, GpuDirect) {
  const std::string yaml = "- {device: ^mlx5_, gpudirect: true}\n";
  const std::map<std::string, std::string> check = {
      {"device", "mlx5_0"}, {"check", "gpudirect"}, {"expected", "true"}};
  // nvidia_peermem live, passthrough IOMMU.
  std::vector<prometheus::MetricFamily> fams;
  auto dgx = OnGpuHost("dgx", yaml);
  const auto s = ScrapeFlat(*dgx, &fams);
  testing::ExpectDeclared(MakeExpectCollectorSpec(), fams);
  EXPECT_EQ(ValueOf(s, "rnic_expect_check_ok", check), 1);
  EXPECT_EQ(testing::CountOf(s, "rnic_expect_check_ok"), 10);
  // No peer-memory path, DMA translation.
  auto shared = OnGpuHost("shared", yaml);
  EXPECT_EQ(ValueOf(ScrapeFlat(*shared), "rnic_expect_check_ok", check), 0);
  // No GPU at all: a NIC meant for GPUDirect cannot do it.
  auto nogpu = OnGpuHost("nogpu", yaml);
  EXPECT_EQ(ValueOf(ScrapeFlat(*nogpu), "rnic_expect_check_ok", check), 0);
  // DMA-BUF through amdgpu, no IOMMU.
  auto amd = OnGpuHost("amd", yaml);
  EXPECT_EQ(ValueOf(ScrapeFlat(*amd), "rnic_expect_check_ok", check), 1);
  // gpudirect: false holds where it is not possible.
  auto expect_not =
      OnGpuHost("nogpu", "- {device: ^mlx5_, gpudirect: false}\n");
  EXPECT_EQ(ValueOf(ScrapeFlat(*expect_not), "rnic_expect_check_ok",
                    {{"device", "mlx5_1"}, {"expected", "false"}}),
            1);
}

TEST(ExpectCollectorTest, GpuDirectUnknownReadsZero) {
  // The AMD host with a procfs that has no kernel release: whether DMA-BUF
  // works cannot be told, so neither true nor false holds.
  auto entries = Parse("- {device: ^mlx5_0$, gpudirect: false}\n");
  ASSERT_TRUE(entries.ok());
  ExpectSources src;
  src.sysfs = RNIC_FIXTURES_DIR "/gpu/amd/sys";
  src.procfs = RNIC_FIXTURES_DIR "/gpu/nogpu/proc";  // no osrelease
  src.dcb = MakeFixtureDcbSource(kRoot + "/dcb");
  auto c = MakeExpectCollector(std::move(src), std::move(entries).value());
  EXPECT_EQ(ValueOf(ScrapeFlat(*c), "rnic_expect_check_ok",
                    {{"device", "mlx5_0"}, {"check", "gpudirect"}}),
            0);
}

}  // namespace
}  // namespace rnic
