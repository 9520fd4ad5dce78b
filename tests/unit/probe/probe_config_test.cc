#include "collectors/probe/probe_config.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "collectors/probe/probe_collector.h"

namespace rnic::probe {
namespace {

std::string ErrorOf(const std::string& yaml) {
  auto r = ParseProbeConfig(YAML::Load(yaml));
  return r.ok() ? "" : r.error().message;
}

TEST(ProbeConfigTest, AbsentSectionGivesWorkingDefaults) {
  auto r = ParseProbeConfig(YAML::Node());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->enabled);
  EXPECT_EQ(r->operations.size(), 5u);
  EXPECT_EQ(r->sizes, (std::vector<std::uint32_t>{64, 4096}));
  EXPECT_EQ(r->mr_sizes,
            (std::vector<std::uint64_t>{4096, 1u << 20, 64u << 20}));
  EXPECT_EQ(r->gid_index, -1);
  EXPECT_TRUE(r->split_cpus);
  EXPECT_FALSE(r->two_sided_write);
  EXPECT_DOUBLE_EQ(r->cpu_budget_percent, 1.0);
  EXPECT_TRUE(r->WantsDevice("anything"));
  EXPECT_TRUE(r->WantsPort(2));
  EXPECT_GE(r->cq_depth, r->sq_depth + r->rq_depth);
}

TEST(ProbeConfigTest, ParsesEveryKey) {
  auto r = ParseProbeConfig(YAML::Load(R"(
enabled: true
devices: [mlx5_0, rxe0]
ports: [1]
operations: [write, read, fetch_add]
sizes: [8, 2KiB, 1m]
interval: 250ms
iterations: 5
timeout: 2s
sq_depth: 16
rq_depth: 16
cq_depth: 40
gid_index: 3
mr_sizes: [4k, 2MiB]
mr_interval: 10m
qp_counters: false
split_cpus: false
two_sided_write: true
cpu_budget_percent: 0.5
)"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->devices, (std::vector<std::string>{"mlx5_0", "rxe0"}));
  EXPECT_FALSE(r->WantsDevice("mlx5_1"));
  EXPECT_FALSE(r->WantsPort(2));
  EXPECT_EQ(r->operations,
            (std::vector<Operation>{Operation::kWrite, Operation::kRead,
                                    Operation::kAtomicFetchAdd}));
  EXPECT_EQ(r->sizes, (std::vector<std::uint32_t>{8, 2048, 1u << 20}));
  EXPECT_EQ(r->MaxSize(), 1u << 20);
  EXPECT_EQ(r->interval, std::chrono::milliseconds(250));
  EXPECT_EQ(r->op_timeout, std::chrono::seconds(2));
  EXPECT_EQ(r->mr_interval, std::chrono::minutes(10));
  EXPECT_EQ(r->iterations, 5);
  EXPECT_EQ(r->gid_index, 3);
  EXPECT_EQ(r->mr_sizes, (std::vector<std::uint64_t>{4096, 2u << 20}));
  EXPECT_FALSE(r->qp_counters);
  EXPECT_FALSE(r->split_cpus);
  EXPECT_TRUE(r->two_sided_write);
  EXPECT_DOUBLE_EQ(r->cpu_budget_percent, 0.5);
}

TEST(ProbeConfigTest, BadValuesNameTheKey) {
  EXPECT_EQ(ErrorOf("sizes: [64, 0]"),
            "probe.sizes[1]: must be between 1 and 1048576");
  EXPECT_EQ(ErrorOf("sizes: [64, 2GiB]"),
            "probe.sizes[1]: must be between 1 and 1048576");
  EXPECT_NE(ErrorOf("sizes: [64, 4 parsecs]").find("probe.sizes[1]:"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("operations: [write, teleport]").find("probe.operations[1]"),
      std::string::npos);
  EXPECT_NE(ErrorOf("interval: fast").find("probe.interval:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("interval: 1ms").find("probe.interval:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("iterations: 0").find("probe.iterations:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("iterations: ten").find("probe.iterations:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("gid_index: -2").find("probe.gid_index:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("cq_depth: 10").find("probe.cq_depth:"), std::string::npos);
  EXPECT_NE(ErrorOf("enabled: maybe").find("probe.enabled:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("devices: mlx5_0").find("probe.devices:"),
            std::string::npos);
  EXPECT_NE(ErrorOf("ports: [0]").find("probe.ports[0]:"), std::string::npos);
  EXPECT_NE(ErrorOf("mr_sizes: [4k, -1]").find("probe.mr_sizes[1]:"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("cpu_budget_percent: 101"),
            "probe.cpu_budget_percent: must be between 0 and 100");
  EXPECT_EQ(ErrorOf("cpu_budget_percent: -1"),
            "probe.cpu_budget_percent: must be between 0 and 100");
  EXPECT_NE(
      ErrorOf("cpu_budget_percent: lots").find("probe.cpu_budget_percent:"),
      std::string::npos);
  EXPECT_EQ(ErrorOf("intervall: 1s"), "probe.intervall: unknown key");
  EXPECT_EQ(ErrorOf("[1, 2]"), "probe: must be a map");
}

// Fault injection lives in the test build (tests/tools/probe_test_hooks);
// the shipped schema does not know its key, and the exporter refuses it at
// start-up: the collector's factory fails, naming the key.
TEST(ProbeConfigTest, ShippedExporterRefusesTheTestHookKey) {
  EXPECT_EQ(ErrorOf("test_cq_overrun: true"),
            "probe.test_cq_overrun: unknown key");
  CollectorArgs args;
  args.config = YAML::Load("interval: 1s\ntest_cq_overrun: true");
  auto c = MakeProbeCollectorSpec().factory(args);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().ToString().find("probe.test_cq_overrun"),
            std::string::npos);
}

// Durations use the Prometheus syntax of the collector options.
TEST(ProbeConfigTest, Durations) {
  auto c = ParseProbeConfig(YAML::Load("interval: 1m30s\ntimeout: 250ms"));
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->interval, std::chrono::seconds(90));
  EXPECT_EQ(c->op_timeout, std::chrono::milliseconds(250));
  for (const char* bad : {"interval: 1.5s", "interval: 2", "interval: -1s",
                          "interval: 1s1m", "interval: nan"}) {
    auto r = ParseProbeConfig(YAML::Load(bad));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().ToString().find("probe.interval"), std::string::npos)
        << r.error().ToString();
  }
}

TEST(ProbeConfigTest, OperationTraits) {
  EXPECT_STREQ(OperationName(Operation::kAtomicCmpSwap), "atomic_cmp_swap");
  EXPECT_TRUE(IsAtomic(Operation::kAtomicFetchAdd));
  EXPECT_FALSE(IsAtomic(Operation::kRead));
  EXPECT_TRUE(IsHalfRoundTrip(Operation::kWrite));
  EXPECT_TRUE(IsHalfRoundTrip(Operation::kSend));
  EXPECT_FALSE(IsHalfRoundTrip(Operation::kRead));
}

}  // namespace
}  // namespace rnic::probe
