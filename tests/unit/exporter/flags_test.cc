#include "exporter/flags.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

std::vector<CollectorSpec> Specs() {
  CollectorSpec a;
  a.name = "alpha";
  a.default_enabled = true;
  a.options = {RegexOption("device-include", "regex"),
               IntOption("depth", "d", 7, 0, 100)};
  CollectorSpec b;
  b.name = "beta";
  b.default_enabled = false;
  b.options = {BoolOption("deep", "go deep", false)};
  return {a, b};
}

Result<Options> Parse(std::vector<std::string> args) {
  return ParseFlags(args, Specs());
}

TEST(FlagsTest, Defaults) {
  auto o = Parse({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->listen_addresses,
            std::vector<std::string>{":" + std::to_string(kDefaultPort)});
  EXPECT_EQ(o->telemetry_path, "/metrics");
  EXPECT_EQ(o->max_requests, 10);
  EXPECT_EQ(o->paths.sysfs, "/sys");
  EXPECT_TRUE(o->collectors.at("alpha"));
  EXPECT_FALSE(o->collectors.at("beta"));
  EXPECT_EQ(o->collector_options.at("alpha").Int("depth"), 7);
  EXPECT_TRUE(o->collector_options.at("alpha").Regex("device-include").empty());
  EXPECT_FALSE(o->collector_options.at("beta").Bool("deep"));
}

TEST(FlagsTest, CollectorSwitchesAndOptions) {
  auto o = Parse({"--collector.disable-defaults", "--collector.beta",
                  "--collector.alpha.depth=9",
                  "--collector.alpha.device-include", "mlx.*"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_FALSE(o->collectors.at("alpha"));
  EXPECT_TRUE(o->collectors.at("beta"));
  EXPECT_EQ(o->collector_options.at("alpha").Int("depth"), 9);
  EXPECT_TRUE(o->collector_options.at("alpha")
                  .Regex("device-include")
                  .Search("mlx5_0"));
  o = Parse({"--no-collector.alpha"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->collectors.at("alpha"));
}

// A boolean option alone is true and negated false, as the collector
// switches are; only a boolean option can be negated.
TEST(FlagsTest, BooleanOptionsAloneAndNegated) {
  auto o = Parse({"--collector.beta.deep", "--collector.alpha.depth=2"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_TRUE(o->collector_options.at("beta").Bool("deep"));
  o = Parse({"--no-collector.beta.deep"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_FALSE(o->collector_options.at("beta").Bool("deep"));
  EXPECT_FALSE(Parse({"--no-collector.beta.deep=true"}).ok());
  auto bad = Parse({"--no-collector.alpha.depth"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("only a boolean option can be negated"),
            std::string::npos);
  // The next argument is not taken as the boolean's value.
  EXPECT_FALSE(Parse({"--collector.beta.deep", "false"}).ok());
}

TEST(FlagsTest, RepeatableListenAddressAndValues) {
  auto o = Parse({"--web.listen-address=127.0.0.1:1", "--web.listen-address",
                  ":2", "--path.sysfs=/x", "--log.format", "json",
                  "--web.max-requests=3", "--web.telemetry-path=/m"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->listen_addresses,
            (std::vector<std::string>{"127.0.0.1:1", ":2"}));
  EXPECT_EQ(o->paths.sysfs, "/x");
  EXPECT_EQ(o->log_format, "json");
  EXPECT_EQ(o->max_requests, 3);
  EXPECT_EQ(o->telemetry_path, "/m");
}

TEST(FlagsTest, BadInputNamesTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  } cases[] = {
      {{"--nope"}, "--nope"},
      {{"--collector.gamma"}, "gamma"},
      {{"--collector.alpha.bogus=1"}, "bogus"},
      {{"--log.level=loud"}, "--log.level"},
      {{"--log.format=xml"}, "--log.format"},
      {{"--web.max-requests=-1"}, "--web.max-requests"},
      {{"--web.max-requests=x"}, "--web.max-requests"},
      {{"--web.telemetry-path=metrics"}, "--web.telemetry-path"},
      {{"--path.sysfs"}, "--path.sysfs"},
      {{"--collector.alpha=maybe"}, "--collector.alpha"},
      {{"positional"}, "positional"},
      {{"--web.timeout-offset=-1"}, "--web.timeout-offset"},
      {{"--web.timeout-offset=nan"}, "--web.timeout-offset"},
      {{"--web.timeout-offset=inf"}, "--web.timeout-offset"},
      {{"--web.timeout-offset=1e300"}, "--web.timeout-offset"},
      {{"--web.default-timeout=nan"},
       "--web.default-timeout: expected seconds"},
      {{"--web.default-timeout=inf"}, "--web.default-timeout"},
      {{"--web.default-timeout=-inf"}, "--web.default-timeout"},
      {{"--web.default-timeout=1e300"}, "--web.default-timeout"},
      {{"--web.default-timeout=3601"}, "--web.default-timeout"},
      {{"--web.default-timeout=0"}, "--web.default-timeout"},
      {{"--web.default-timeout=10s"}, "--web.default-timeout"},
      {{"--collector.alpha.depth=deep"},
       "--collector.alpha.depth=deep: not an integer 0..100"},
      {{"--collector.alpha.depth", "101"}, "--collector.alpha.depth=101"},
      {{"--collector.alpha.device-include=mlx5_(["},
       "--collector.alpha.device-include=mlx5_(["},
      // A disabled collector's options are checked too.
      {{"--collector.beta.deep=maybe"},
       "--collector.beta.deep=maybe: not a boolean (true/false)"},
      {{"--collector.alpha.depth"}, "--collector.alpha.depth"},
      // Below the config file's resolution: every scrape failed.
      {{"--web.default-timeout=1e-300"}, "--web.default-timeout"},
      {{"--web.default-timeout=0.0009"}, "--web.default-timeout"},
      {{"--web.timeout-offset=1e-300"}, "--web.timeout-offset"},
      // A flag given twice was resolved silently by the last one.
      {{"--log.level=info", "--log.level=debug"},
       "flag --log.level: given twice"},
      {{"--path.sysfs=/a", "--path.sysfs", "/b"},
       "flag --path.sysfs: given twice"},
      {{"--collector.alpha.depth=1", "--collector.alpha.depth=2"},
       "flag --collector.alpha.depth: given twice"},
      {{"--collector.beta", "--no-collector.beta"},
       "flag --no-collector.beta: given twice"},
      {{"--collector.beta.deep=true", "--no-collector.beta.deep"},
       "flag --no-collector.beta.deep: given twice"},
      {{"--web.disable-exporter-metrics", "--web.disable-exporter-metrics"},
       "flag --web.disable-exporter-metrics: given twice"},
  };
  for (const auto& c : cases) {
    auto o = Parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_NE(o.error().message.find(c.needle), std::string::npos)
        << o.error().message;
  }
}

TEST(FlagsTest, TimeoutsInRange) {
  auto o = Parse({"--web.default-timeout=3600", "--web.timeout-offset=0"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->default_timeout_seconds, 3600);
  EXPECT_EQ(o->timeout_offset_seconds, 0);
  o = Parse({"--web.default-timeout=0.25"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->default_timeout_seconds, 0.25);
  o = Parse({"--web.default-timeout=0.001", "--web.timeout-offset=0.001"});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->default_timeout_seconds, 0.001);
}

TEST(FlagsTest, HelpListsCollectorsAndOptions) {
  std::string h = HelpText(Specs());
  EXPECT_NE(h.find("--[no-]collector.alpha"), std::string::npos);
  EXPECT_NE(h.find("--collector.alpha.depth=VALUE"), std::string::npos);
  EXPECT_NE(h.find("d (int 0..100, default: 7)"), std::string::npos) << h;
  EXPECT_NE(h.find("regex (regex)"), std::string::npos) << h;
  EXPECT_NE(h.find("default: disabled"), std::string::npos);
}

}  // namespace
}  // namespace rnic
