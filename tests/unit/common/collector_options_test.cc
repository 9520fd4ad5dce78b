#include "collectors/collector_options.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "collectors/collector_spec.h"

namespace rnic {
namespace {

using std::chrono::milliseconds;

Result<OptionValue> P(const OptionSpec& spec, const std::string& text) {
  return ParseOptionValue(spec, text);
}

TEST(OptionTypes, Bool) {
  const auto spec = BoolOption("b", "", true);
  EXPECT_EQ(spec.default_value, "true");
  EXPECT_EQ(std::get<bool>(P(spec, "true").value()), true);
  EXPECT_EQ(std::get<bool>(P(spec, "false").value()), false);
  for (const char* bad : {"", "maybe", "1", "0", "yes", "TRUE", "true "}) {
    auto r = P(spec, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, "not a boolean (true/false)");
  }
}

TEST(OptionTypes, IntWithRange) {
  const auto spec = IntOption("n", "", 20, 0, 1000);
  EXPECT_EQ(spec.default_value, "20");
  EXPECT_EQ(TypeText(spec), "int 0..1000");
  EXPECT_EQ(std::get<std::int64_t>(P(spec, "0").value()), 0);
  EXPECT_EQ(std::get<std::int64_t>(P(spec, "1000").value()), 1000);
  EXPECT_EQ(std::get<std::int64_t>(P(spec, "37").value()), 37);
  for (const char* bad : {"", "-1", "1001", "1e3", "12x", " 5", "+5", "0x10",
                          "99999999999999999999"}) {
    auto r = P(spec, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, "not an integer 0..1000") << bad;
  }
}

TEST(OptionTypes, IntRangeTexts) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(TypeText(IntOption("n", "", 1, 0, kMax)), "int >= 0");
  EXPECT_EQ(TypeText(IntOption("n", "", 1, kMin, 9)), "int <= 9");
  const auto any = IntOption("n", "", 1, kMin, kMax);
  EXPECT_EQ(TypeText(any), "int");
  EXPECT_EQ(std::get<std::int64_t>(P(any, "-42").value()), -42);
  EXPECT_EQ(P(any, "x").error().message, "not an integer");
  EXPECT_EQ(P(IntOption("n", "", 1, 0, kMax), "-1").error().message,
            "not an integer >= 0");
}

TEST(OptionTypes, Duration) {
  struct Case {
    const char* text;
    milliseconds want;
  } ok[] = {
      {"0", milliseconds(0)},
      {"0s", milliseconds(0)},
      {"30s", milliseconds(30'000)},
      {"5m", milliseconds(300'000)},
      {"1h", milliseconds(3'600'000)},
      {"1h30m", milliseconds(5'400'000)},
      {"250ms", milliseconds(250)},
      {"1m5ms", milliseconds(60'005)},
      {"2d", milliseconds(2LL * 86'400'000)},
      {"1w", milliseconds(7LL * 86'400'000)},
      {"1y", milliseconds(365LL * 86'400'000)},
      {"1y2w3d4h5m6s7ms",
       milliseconds(365LL * 86'400'000 + 2LL * 7 * 86'400'000 +
                    3LL * 86'400'000 + 4LL * 3'600'000 + 5LL * 60'000 + 6'000 +
                    7)},
  };
  const auto spec =
      DurationOption("d", "", "30s", milliseconds(0), milliseconds::max());
  for (const auto& c : ok) {
    auto r = P(spec, c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_EQ(std::get<milliseconds>(r.value()), c.want) << c.text;
  }
  for (const char* bad :
       {"", "30", "s", "1.5s", "-1s", "+1s", "1m1h", "1s1s", "5 m", "5M",
        "1h 30m", "10us", "1sm", "99999999999y"}) {
    auto r = P(spec, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("duration"), std::string::npos) << bad;
  }
}

// A flag's duration has a range like the config file's: 293y overflowed
// the conversion to nanoseconds and spun the optics thread.
TEST(OptionTypes, DurationOutsideItsRangeIsRefused) {
  const auto spec = DurationOption("d", "", "1m", std::chrono::seconds(1),
                                   std::chrono::hours(24));
  EXPECT_EQ(TypeText(spec), "duration 1s..1d");
  for (const char* bad : {"0", "999ms", "24h1ms", "293y"}) {
    auto r = P(spec, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, "must be between 1s and 1d") << bad;
  }
  for (const char* good : {"1s", "24h", "1d", "90m"}) {
    EXPECT_TRUE(P(spec, good).ok()) << good;
  }
}

// Found by tests/fuzz/fuzz_flags: libstdc++ overflowed a long (UB) reading
// these numbers. Refused with a message; long digit runs elsewhere are fine.
TEST(OptionTypes, RegexWithHugeBackrefOrRepeatCountIsRefused) {
  const auto spec = RegexOption("r", "");
  for (const char* bad :
       {"\\7777777777777777777777", "a{99999999999}", "a{1,99999999999}"}) {
    auto r = P(spec, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("9 digits"), std::string::npos);
  }
  EXPECT_TRUE(P(spec, "mlx5_12345678901234").ok());
  EXPECT_TRUE(P(spec, "a{2,3}").ok());
}

TEST(OptionTypes, RegexIsCompiledOnceAndUnanchored) {
  const auto spec = RegexOption("r", "");
  auto r = P(spec, "^mlx5_[0-9]+$");
  ASSERT_TRUE(r.ok());
  const auto& re = std::get<CompiledRegex>(r.value());
  EXPECT_FALSE(re.empty());
  EXPECT_EQ(re.pattern(), "^mlx5_[0-9]+$");
  EXPECT_TRUE(re.Search("mlx5_12"));
  EXPECT_FALSE(re.Search("mlx5_bond"));
  auto sub = P(spec, "rxe");
  ASSERT_TRUE(sub.ok());
  EXPECT_TRUE(std::get<CompiledRegex>(sub.value()).Search("my_rxe0"));
  // Empty: not set, matches nothing.
  auto unset = P(spec, "");
  ASSERT_TRUE(unset.ok());
  EXPECT_TRUE(std::get<CompiledRegex>(unset.value()).empty());
  EXPECT_FALSE(std::get<CompiledRegex>(unset.value()).Search("x"));
  for (const char* bad : {"mlx5_([", "*", "a{2,1}", "(?<x>a)"}) {
    auto b = P(spec, bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.error().message.find("not a valid regular expression"),
              std::string::npos)
        << bad;
  }
}

TEST(OptionTypes, StringTakesAnything) {
  const auto spec = StringOption("s", "", "x");
  for (const char* any : {"", " a b ", "true", "--x=y"}) {
    EXPECT_EQ(std::get<std::string>(P(spec, any).value()), any);
  }
}

std::vector<OptionSpec> Specs() {
  return {
      BoolOption("on", "", false), IntOption("n", "", 3, 1, 9),
      DurationOption("every", "", "1m", milliseconds(1), std::chrono::hours(1)),
      RegexOption("only", ""), StringOption("name", "", "x")};
}

TEST(OptionValues, DefaultsAndGivenAreTyped) {
  auto v = OptionValues::Parse("c", Specs(), {{"n", "7"}, {"only", "^a"}});
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_FALSE(v->Bool("on"));
  EXPECT_EQ(v->Int("n"), 7);
  EXPECT_EQ(v->Duration("every"), milliseconds(60'000));
  EXPECT_TRUE(v->Regex("only").Search("abc"));
  EXPECT_EQ(v->String("name"), "x");
  EXPECT_EQ(v->Text("n"), "7");
  EXPECT_EQ(v->Text("every"), "1m");
}

TEST(OptionValues, BadValueNamesFlagValueAndForm) {
  auto v =
      OptionValues::Parse("netlink_stat", {BoolOption("qp-counters", "", true)},
                          {{"qp-counters", "maybe"}});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message,
            "--collector.netlink_stat.qp-counters=maybe: not a boolean "
            "(true/false)");
  v = OptionValues::Parse("c", Specs(), {{"n", "10"}});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "--collector.c.n=10: not an integer 1..9");
  v = OptionValues::Parse("c", Specs(), {{"every", "soon"}});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(
      v.error().message.rfind("--collector.c.every=soon: not a duration", 0),
      0u)
      << v.error().message;
  v = OptionValues::Parse("c", Specs(), {{"bogus", "1"}});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("--collector.c.bogus"), std::string::npos);
}

TEST(OptionValues, BadDefaultIsRefusedToo) {
  auto v = OptionValues::Parse("c", {IntOption("n", "", 0, 1, 9)}, {});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message,
            "--collector.c.n=0: not an integer 1..9 (the default)");
}

TEST(OptionValues, UndeclaredOrMistypedReadIsABug) {
  auto v = OptionValues::Parse("c", Specs(), {});
  ASSERT_TRUE(v.ok());
  EXPECT_THROW((void)v->Bool("nope"), std::logic_error);
  EXPECT_THROW((void)v->Int("on"), std::logic_error);
  EXPECT_THROW((void)v->Regex("name"), std::logic_error);
}

// Every compiled-in collector's defaults parse: a typo in a default would
// otherwise stop every start-up.
TEST(OptionValues, EveryCollectorsDefaultsParse) {
  for (const auto& spec : AllCollectors()) {
    auto v = spec.ParseOptions();
    EXPECT_TRUE(v.ok()) << spec.name << ": " << v.error().message;
    for (const auto& o : spec.options) {
      EXPECT_FALSE(o.help.empty()) << spec.name << "." << o.name;
    }
  }
}

}  // namespace
}  // namespace rnic
