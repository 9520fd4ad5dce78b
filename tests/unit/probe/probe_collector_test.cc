#include "collectors/probe/probe_collector.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

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
  EXPECT_FALSE(spec.metrics.empty());
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
  // Nothing probed: only the CPU counter, at zero.
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out.families()[0].name, "rnic_probe_cpu_seconds_total");
  EXPECT_EQ(out.families()[0].metric.at(0).counter.value, 0);
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
