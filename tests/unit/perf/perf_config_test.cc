// The perf: section of --config.file, through the collector's factory.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "collectors/perf/perf_collector.h"

namespace rnic {
namespace {

std::string ErrorOf(const std::string& yaml) {
  const CollectorSpec spec = MakePerfCollectorSpec();
  CollectorArgs args;
  args.paths.sysfs = "/nonexistent";
  args.options = spec.ParseOptions().value();
  args.config = YAML::Load(yaml);
  auto c = spec.factory(args);
  return c.ok() ? "" : c.error().message;
}

// Found by tests/fuzz/fuzz_config: as<std::string>() threw (exit 134).
TEST(PerfConfigTest, NonScalarKeyIsAnError) {
  EXPECT_EQ(ErrorOf("[a, b]: 1"),
            "perf: a key must be a plain name, not [a, b]");
  EXPECT_EQ(ErrorOf("{a: 1}: 1"),
            "perf: a key must be a plain name, not {a: 1}");
  EXPECT_EQ(ErrorOf("cpus: 1"), "perf.cpus: unknown key");
}

}  // namespace
}  // namespace rnic
