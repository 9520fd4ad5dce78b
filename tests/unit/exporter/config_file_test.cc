#include "exporter/config_file.h"

#include <gtest/gtest.h>

#include <fstream>

namespace rnic {
namespace {

std::string Write(const std::string& text) {
  // Unique per test and call: ctest runs tests of this binary in parallel.
  static int n = 0;
  std::string path = ::testing::TempDir() + "/rnic_config_" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                     std::to_string(++n) + ".yml";
  std::ofstream(path) << text;
  return path;
}

std::vector<CollectorSpec> Specs() {
  CollectorSpec p;
  p.name = "probe";
  return {p};
}

TEST(ConfigFileTest, SectionsByCollector) {
  auto c = LoadConfigFile(Write("probe:\n  interval: 5s\n"), Specs());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->at("probe")["interval"].as<std::string>(), "5s");
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

// Found by tests/fuzz/fuzz_config: a list or map key threw out of
// LoadConfigFile (exit 134).
TEST(ConfigFileTest, NonScalarKeyIsAnError) {
  for (const char* text : {"[a, b]: 1\n", "? {probe: 1}\n: 2\n"}) {
    auto c = LoadConfigFile(Write(text), Specs());
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_NE(c.error().message.find("not a list or a map"), std::string::npos);
  }
}

}  // namespace
}  // namespace rnic
