// The settings probe: and fabric: share are one declaration: the same value
// is accepted or refused alike in both sections, with the same reason.
#include "collectors/probing/probe_knobs.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "collectors/fabric/fabric_config.h"
#include "collectors/probe/probe_config.h"

namespace rnic {
namespace {

// The reason, without the section's name ("" when the value is accepted).
std::string Reason(const std::string& section, const std::string& yaml) {
  const YAML::Node node = YAML::Load(yaml);
  const std::string message =
      section == "probe"
          ? (probe::ParseProbeConfig(node).ok()
                 ? ""
                 : probe::ParseProbeConfig(node).error().message)
          : (fabric::ParseFabricConfig(node).ok()
                 ? ""
                 : fabric::ParseFabricConfig(node).error().message);
  if (message.empty()) return "";
  EXPECT_EQ(message.rfind(section + ".", 0), 0u) << message;
  return message.substr(section.size());
}

TEST(ProbeKnobsTest, SharedKeysHaveOneSetOfLimits) {
  for (const char* yaml : {"interval: 10ms",
                           "interval: 9ms",
                           "interval: 1h",
                           "interval: 61m",
                           "interval: banana",
                           "iterations: 1",
                           "iterations: 0",
                           "iterations: 10000",
                           "iterations: 10001",
                           "timeout: 1ms",
                           "timeout: 0s",
                           "timeout: 1m",
                           "timeout: 61s",
                           "cpu_budget_percent: 0",
                           "cpu_budget_percent: 2.5",
                           "cpu_budget_percent: 101",
                           "enabled: false",
                           "enabled: maybe",
                           "sizes: [64, 4KiB]",
                           "sizes: []",
                           "sizes: [4 b]",
                           "operations: [send, send, read]",
                           "operations: []",
                           "operations: [[send]]"}) {
    EXPECT_EQ(Reason("probe", yaml), Reason("fabric", yaml)) << yaml;
  }
  EXPECT_EQ(Reason("probe", "interval: 9ms"),
            ".interval: must be between 10ms and 3600000ms");
  EXPECT_EQ(Reason("fabric", "iterations: 10001"),
            ".iterations: must be between 1 and 10000");
  EXPECT_EQ(Reason("fabric", "operations: []"),
            ".operations: must not be empty");
}

TEST(ProbeKnobsTest, SizesAndOperationsFollowWhatTheTransportCarries) {
  // The fabric responder takes messages up to 64 KiB and no atomics.
  EXPECT_EQ(Reason("probe", "sizes: [1MiB]"), "");
  EXPECT_EQ(Reason("fabric", "sizes: [1MiB]"),
            ".sizes[0]: must be between 1 and 65536");
  EXPECT_EQ(Reason("probe", "operations: [fetch_add]"), "");
  EXPECT_EQ(Reason("fabric", "operations: [fetch_add]"),
            ".operations[0]: unknown operation 'fetch_add' (send, write, "
            "read)");
  EXPECT_EQ(Reason("probe", "operations: [teleport]"),
            ".operations[0]: unknown operation 'teleport' (send, write, read, "
            "atomic_cmp_swap, atomic_fetch_add)");
}

TEST(ProbeKnobsTest, RepeatedOperationsAreProbedOnce) {
  auto p =
      probe::ParseProbeConfig(YAML::Load("operations: [read, send, read]"));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->operations,
            (std::vector<probe::Operation>{probe::Operation::kRead,
                                           probe::Operation::kSend}));
  auto f = fabric::ParseFabricConfig(YAML::Load("operations: [write, write]"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->operations,
            std::vector<probe::Operation>{probe::Operation::kWrite});
}

}  // namespace
}  // namespace rnic
