#include "exporter/config_file.h"

#include <gtest/gtest.h>

#include <fstream>

namespace rnic {
namespace {

std::string Write(const std::string& text) {
  // Unique per test and call: ctest runs tests of this binary in parallel.
  static int n = 0;
  std::string path =
      ::testing::TempDir() + "/rnic_config_" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name() +
      std::to_string(++n) + ".yml";
  std::ofstream(path) << text;
  return path;
}

std::vector<CollectorSpec> Specs() {
  CollectorSpec p;
  p.name = "probe";
  p.check_config = [](const YAML::Node&) { return Status::Ok(); };
  return {p};
}

// The error for `yaml` with the shipped collectors, "" when it loads.
std::string ShippedError(const std::string& yaml) {
  auto c = LoadConfigFile(Write(yaml), AllCollectors());
  return c.ok() ? "" : c.error().message;
}

TEST(ConfigFileTest, SectionsByCollector) {
  auto c = LoadConfigFile(Write("probe:\n  interval: 5s\n"), Specs());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->at("probe")["interval"].as<std::string>(), "5s");
}

// Everything after a "---" was ignored, unknown keys included.
TEST(ConfigFileTest, SecondDocumentIsRefused) {
  for (const char* yaml : {"probe: {}\n---\nbogus: 1\n", "---\n---\n",
                           "probe: {}\n...\n---\nprobe: {}\n"}) {
    auto c = LoadConfigFile(Write(yaml), Specs());
    ASSERT_FALSE(c.ok()) << yaml;
    EXPECT_NE(c.error().message.find("more than one YAML document"),
              std::string::npos)
        << c.error().message;
  }
  EXPECT_TRUE(LoadConfigFile(Write("---\nprobe: {}\n"), Specs()).ok());
}

// A directory aborted with std::ios_base::failure; a 10 MB file held about
// 1 GB of nodes.
TEST(ConfigFileTest, DirectoryDeviceAndOversizedFileAreRefused) {
  auto c = LoadConfigFile(::testing::TempDir(), Specs());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("not a regular file"), std::string::npos);
  c = LoadConfigFile("/dev/zero", Specs());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("/dev/zero: not a regular file"),
            std::string::npos);
  c = LoadConfigFile(Write(std::string(2 << 20, '#')), Specs());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("larger than 1048576 bytes"),
            std::string::npos)
      << c.error().message;
}

TEST(ConfigFileTest, EmptyPathAndEmptyFile) {
  EXPECT_TRUE(LoadConfigFile("", Specs())->empty());
  EXPECT_TRUE(LoadConfigFile(Write(""), Specs())->empty());
}

TEST(ConfigFileTest, ErrorsNameTheProblem) {
  auto c = LoadConfigFile(Write("probee:\n  x: 1\n"), Specs());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("probee"), std::string::npos);
  c = LoadConfigFile(Write("probe: [1, 2\n"), Specs());
  ASSERT_FALSE(c.ok());
  c = LoadConfigFile("/nonexistent/rnic.yml", Specs());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("/nonexistent/rnic.yml"), std::string::npos);
  c = LoadConfigFile(Write("- 1\n- 2\n"), Specs());
  ASSERT_FALSE(c.ok());
}

TEST(ConfigFileTest, ListOrMapKeysAreRefusedInEverySection) {
  EXPECT_NE(ShippedError("[a, b]: 1\n")
                .find("a key must be a plain name, not [a, b]"),
            std::string::npos);
  for (const auto& spec : AllCollectors()) {
    for (const char* key : {"[a, b]", "{a: 1}"}) {
      const std::string e = ShippedError(spec.name + ":\n  " + key + ": 1\n");
      EXPECT_NE(e.find(spec.name), std::string::npos) << spec.name << ": " << e;
      EXPECT_NE(e.find(key), std::string::npos) << spec.name << ": " << e;
    }
  }
  const std::string e =
      ShippedError("perf:\n  events:\n    - {pmu: msr, event: tsc, [x]: 1}\n");
  EXPECT_NE(e.find("perf.events[0]: a key must be a plain name"),
            std::string::npos)
      << e;
}

TEST(ConfigFileTest, UnknownKeysNameSectionAndKey) {
  EXPECT_NE(ShippedError("perf: {cpus: 3}\n").find("perf.cpus: unknown key"),
            std::string::npos);
  EXPECT_NE(ShippedError("roce: {dcb: x}\n").find("roce.dcb: unknown key"),
            std::string::npos);
  EXPECT_NE(ShippedError("probe: {intervall: 1s}\n")
                .find("probe.intervall: unknown key"),
            std::string::npos);
  EXPECT_NE(
      ShippedError("perf:\n  events:\n    - {pmu: msr, event: tsc, cpu: 1}\n")
          .find("perf.events[0].cpu: unknown key"),
      std::string::npos);
  // Collectors without settings take no section.
  for (const char* c : {"sysfs", "netlink_stat", "netlink_resource", "kmsg"}) {
    const std::string e = ShippedError(std::string(c) + ": {foo: 1}\n");
    EXPECT_NE(e.find(std::string(c) +
                     ".foo: unknown key (this collector has no settings)"),
              std::string::npos)
        << e;
    EXPECT_EQ(ShippedError(std::string(c) + ":\n"), "") << c;
    EXPECT_NE(ShippedError(std::string(c) + ": 3\n")
                  .find(std::string(c) + ": must be a map"),
              std::string::npos)
        << c;
    EXPECT_EQ(ShippedError(std::string(c) + ": {}\n"), "") << c;
  }
}

TEST(ConfigFileTest, DisabledCollectorsSectionsAreChecked) {
  // probe and perf are disabled by default; loading checks them anyway.
  EXPECT_NE(ShippedError("probe: {interval: banana}\n").find("probe.interval:"),
            std::string::npos);
  EXPECT_NE(
      ShippedError("probe: {qp_counters: maybe}\n").find("probe.qp_counters:"),
      std::string::npos);
  EXPECT_NE(ShippedError("probe: {interval: 1e300s}\n").find("probe.interval:"),
            std::string::npos);
  for (const char* d : {"nan", "inf", "infs", "1e300"}) {
    EXPECT_NE(ShippedError(std::string("probe: {timeout: ") + d + "}\n")
                  .find("probe.timeout:"),
              std::string::npos)
        << d;
  }
  EXPECT_NE(
      ShippedError("perf: {events: 3}\n").find("perf.events: must be a list"),
      std::string::npos);
}

TEST(ConfigFileTest, PerfEventValues) {
  EXPECT_EQ(
      ShippedError(
          "perf:\n  events:\n    - {pmu: msr, event: tsc, cpus: \"0-3,8\", "
          "scale: 4}\n    - {pmu: msr, event: tsc, cpus: [0, 2]}\n"),
      "");
  for (const char* bad :
       {"cpus: x", "cpus: [-1]", "cpus: [a]", "cpus: {a: 1}", "scale: .nan",
        "scale: .inf", "scale: 0", "scale: lots", "pmu: [a]", "name: {a: 1}"}) {
    const std::string e = ShippedError(
        std::string("perf:\n  events:\n    - {pmu: msr, event: tsc, ") + bad +
        "}\n");
    const std::string key =
        std::string(bad).substr(0, std::string(bad).find(':'));
    EXPECT_NE(e.find("perf.events[0]." + key + ":"), std::string::npos)
        << bad << " -> " << e;
  }
}

TEST(ConfigFileTest, ShippedExampleLoads) {
  auto c = LoadConfigFile(
      std::string(RNIC_SOURCE_DIR) + "/packaging/rnic_exporter.yml",
      AllCollectors());
  EXPECT_TRUE(c.ok()) << c.error().message;
}

}  // namespace
}  // namespace rnic
