#include "collectors/probe/probe_collector.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <thread>

#include "collectors/kmsg/kmsg_collector.h"

namespace rnic {
namespace {

CollectorArgs Args(const std::string& yaml) {
  CollectorArgs a;
  a.config = YAML::Load(yaml);
  a.shared = std::make_shared<SharedFacts>();
  return a;
}

TEST(ProbeCollectorSpecTest, OptInAndDocumented) {
  const auto spec = MakeProbeCollectorSpec();
  EXPECT_EQ(spec.name, "probe");
  EXPECT_FALSE(spec.default_enabled);
  EXPECT_FALSE(spec.families.empty());
  EXPECT_TRUE(MakeKmsgCollectorSpec().default_enabled);
}

TEST(ProbeCollectorSpecTest, BadConfigStopsStartUpNamingTheKey) {
  auto c = MakeProbeCollectorSpec().factory(Args("iterations: -3"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("probe.iterations"), std::string::npos);
}

TEST(ProbeCollectorSpecTest, DisabledByConfigRunsNoEngine) {
  auto c = MakeProbeCollectorSpec().factory(Args("enabled: false"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  MetricSet out;
  ASSERT_TRUE((*c)->Collect(ScrapeContext{}, out).ok());
  // Nothing probed: only the process-wide CPU families, at zero.
  // (Family order is prometheus-cpp's registration order by type, not part
  // of the format.)
  ASSERT_EQ(out.size(), 3u);
  std::map<std::string, double> got;
  for (const auto& f : out.families()) {
    ASSERT_EQ(f.metric.size(), 1u) << f.name;
    got[f.name] = f.type == prometheus::MetricType::Gauge
                      ? f.metric[0].gauge.value
                      : f.metric[0].counter.value;
  }
  EXPECT_EQ(got, (std::map<std::string, double>{
                     {"rnic_probe_budget_delay_seconds_total", 0},
                     {"rnic_probe_cpu_budget_ratio", 0},
                     {"rnic_probe_cpu_seconds_total", 0}}));
}

TEST(KmsgCollectorSpecTest, UnreadableLogFailsTheCollectorNotTheExporter) {
  CollectorArgs a = Args("");
  a.paths.devkmsg = "/nonexistent/kmsg";
  auto c = MakeKmsgCollectorSpec().factory(a);
  ASSERT_TRUE(c.ok());
  MetricSet out;
  const Status st = (*c)->Collect(ScrapeContext{}, out);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace rnic

namespace rnic::probe {
namespace {

// The engine thread's life cycle on whatever this host has (usually no RDMA
// device at all): rounds run at the interval, CPU time is accounted, and
// Stop() joins promptly even with a long interval.
TEST(ProbeEngineTest, RunsRoundsAndStopsCleanly) {
  auto cfg = ParseProbeConfig(YAML::Load("interval: 20ms\nmr_interval: 0s"));
  ASSERT_TRUE(cfg.ok());
  auto stats = std::make_shared<ProbeStats>();
  ProbeEngine engine(*cfg, stats);
  engine.Start();
  for (int i = 0; i < 500 && engine.rounds() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(engine.rounds(), 3u);
  engine.Stop();
  const auto after = engine.rounds();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(engine.rounds(), after);  // no thread left running
  EXPECT_GT(stats->CpuSeconds(), 0.0);
}

// A budget far below what even an empty round costs spaces rounds out well
// beyond the 10 ms interval, says so in the delay counter, and Stop() still
// interrupts the long wait.
TEST(ProbeEngineTest, CpuBudgetHoldsRoundsBack) {
  auto cfg = ParseProbeConfig(YAML::Load(
      "interval: 10ms\nmr_interval: 0s\ncpu_budget_percent: 0.0001"));
  ASSERT_TRUE(cfg.ok());
  auto stats = std::make_shared<ProbeStats>();
  ProbeEngine engine(*cfg, stats);
  engine.Start();
  for (int i = 0; i < 500 && engine.rounds() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Unpaced, 200 ms at a 10 ms interval is ~20 rounds.
  EXPECT_LE(engine.rounds(), 3u);
  EXPECT_GT(stats->BudgetDelaySeconds(), 0.0);
  engine.Stop();
  MetricSet out;
  stats->AppendTo(out);
  bool saw_ratio = false;
  for (const auto& f : out.families()) {
    if (f.name == "rnic_probe_cpu_budget_ratio") {
      saw_ratio = true;
      EXPECT_DOUBLE_EQ(f.metric.at(0).gauge.value, 1e-6);
    }
  }
  EXPECT_TRUE(saw_ratio);
}

TEST(ProbeEngineTest, StopInterruptsALongInterval) {
  auto cfg = ParseProbeConfig(YAML::Load("interval: 1h\nmr_interval: 0s"));
  ASSERT_TRUE(cfg.ok());
  ProbeEngine engine(*cfg, std::make_shared<ProbeStats>());
  engine.Start();
  for (int i = 0; i < 500 && engine.rounds() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  engine.Stop();  // would hang for an hour if the wait ignored stop
  EXPECT_EQ(engine.rounds(), 1u);
}

}  // namespace
}  // namespace rnic::probe
