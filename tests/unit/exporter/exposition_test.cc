#include "exporter/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <locale>

#include "collectors/metrics/metric_set.h"

namespace rnic {
namespace {

std::string Text(const MetricSet& set,
                 ExpositionFormat f = ExpositionFormat::kText004) {
  std::string out;
  Serialize(set.families(), f, out);
  return out;
}

TEST(ExpositionTest, EscapesHelpBackslashAndNewline) {
  MetricSet set;
  set.AddGauge("rnic_g", "a\\b\nc \"q\"", {}, 1);
  std::string out = Text(set);
  EXPECT_NE(out.find("# HELP rnic_g a\\\\b\\nc \"q\"\n"), std::string::npos)
      << out;
  // OpenMetrics also escapes the double quote in HELP.
  out = Text(set, ExpositionFormat::kOpenMetrics100);
  EXPECT_NE(out.find("# HELP rnic_g a\\\\b\\nc \\\"q\\\"\n"), std::string::npos)
      << out;
}

TEST(ExpositionTest, EscapesLabelValues) {
  MetricSet set;
  set.AddGauge("rnic_g", "h", {{"comm", "a\"b\\c\nd"}}, 1);
  EXPECT_NE(Text(set).find("rnic_g{comm=\"a\\\"b\\\\c\\nd\"} 1\n"),
            std::string::npos);
}

TEST(ExpositionTest, PrintsIntegersExactlyAndSpecialValuesBySpec) {
  std::string s;
  AppendValue(123456789012345678.0, s);
  EXPECT_EQ(s,
            "123456789012345680");  // the double's exact integer, not 1.2e+17
  s.clear();
  AppendValue(4294967296.0 * 4, s);
  EXPECT_EQ(s, "17179869184");
  s.clear();
  AppendValue(std::nan(""), s);
  EXPECT_EQ(s, "NaN");
  s.clear();
  AppendValue(std::numeric_limits<double>::infinity(), s);
  EXPECT_EQ(s, "+Inf");
  s.clear();
  AppendValue(-std::numeric_limits<double>::infinity(), s);
  EXPECT_EQ(s, "-Inf");
  s.clear();
  AppendValue(0.000005, s);
  EXPECT_EQ(std::stod(s), 0.000005);
  s.clear();
  AppendValue(-3, s);
  EXPECT_EQ(s, "-3");
}

// 64-bit counters near their wrap: above 2^63 the value no longer fits an
// int64 (casting it there would be undefined; UBSan runs these tests).
TEST(ExpositionTest, PrintsValuesAroundTwoToTheSixtyThree) {
  std::string s;
  AppendValue(9223372036854775808.0, s);  // 2^63
  EXPECT_EQ(s, "9223372036854775808");
  s.clear();
  AppendValue(18446744073709549568.0, s);  // largest double below 2^64
  EXPECT_EQ(std::stod(s), 18446744073709549568.0);
  s.clear();
  AppendValue(9.5e18, s);
  EXPECT_EQ(s, "9500000000000000000");
  s.clear();
  AppendValue(-9.5e18, s);
  EXPECT_EQ(std::stod(s), -9.5e18);
  s.clear();
  AppendValue(-9.1e18, s);
  EXPECT_EQ(s, "-9100000000000000000");
}

TEST(ExpositionTest, EscapingKeepsPlainRunsAndEveryEscape) {
  std::string s;
  AppendEscaped("", true, s);
  EXPECT_EQ(s, "");
  AppendEscaped("mlx5_0", true, s);
  EXPECT_EQ(s, "mlx5_0");
  s.clear();
  AppendEscaped("\\\"\n", true, s);  // only specials, back to back
  EXPECT_EQ(s, "\\\\\\\"\\n");
  s.clear();
  AppendEscaped("x\"y", false, s);  // HELP in text 0.0.4: quote kept
  EXPECT_EQ(s, "x\"y");
}

// A comma-decimal global locale must not leak into the exposition (it would
// if numbers were ever formatted through iostreams or printf).
struct CommaDecimal : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
};

TEST(ExpositionTest, NumbersIgnoreTheGlobalLocale) {
  std::locale saved = std::locale::global(
      std::locale(std::locale::classic(), new CommaDecimal));
  MetricSet set;
  set.AddGauge("rnic_g", "h", {}, 0.25);
  std::string out = Text(set);
  std::locale::global(saved);
  EXPECT_NE(out.find("rnic_g 0.25\n"), std::string::npos) << out;
}

TEST(ExpositionTest, OpenMetricsCounterFamilyDropsTotalAndEndsWithEof) {
  MetricSet set;
  set.AddCounter("rnic_x_bytes_total", "x", {{"device", "d"}}, 5);
  std::string out = Text(set, ExpositionFormat::kOpenMetrics100);
  EXPECT_NE(out.find("# TYPE rnic_x_bytes counter\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("rnic_x_bytes_total{device=\"d\"} 5\n"),
            std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 6), "# EOF\n");
  std::string text = Text(set);
  EXPECT_NE(text.find("# TYPE rnic_x_bytes_total counter\n"),
            std::string::npos);
  EXPECT_EQ(text.find("# EOF"), std::string::npos);
}

TEST(ExpositionTest, HistogramBucketsSumCount) {
  MetricSet set;
  set.AddHistogram("rnic_h_seconds", "h", {{"op", "write"}},
                   {{1e-6, 2}, {1, 3}}, 4, 1.5);
  std::string out = Text(set);
  EXPECT_NE(out.find("rnic_h_seconds_bucket{op=\"write\",le=\"1e-06\"} 2\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rnic_h_seconds_bucket{op=\"write\",le=\"+Inf\"} 4\n"),
            std::string::npos);
  EXPECT_NE(out.find("rnic_h_seconds_sum{op=\"write\"} 1.5\n"),
            std::string::npos);
  EXPECT_NE(out.find("rnic_h_seconds_count{op=\"write\"} 4\n"),
            std::string::npos);
  // OpenMetrics wants le as a float.
  out = Text(set, ExpositionFormat::kOpenMetrics100);
  EXPECT_NE(out.find("le=\"1.0\"} 3\n"), std::string::npos) << out;
}

TEST(ExpositionTest, EmptyFamiliesAreLeftOut) {
  MetricSet set;
  EXPECT_EQ(Text(set), "");
  MetricSet other;
  set.Merge(std::move(other));
  EXPECT_EQ(Text(set), "");
}

TEST(NegotiateFormatTest, PrometheusDefaultAcceptPicksOpenMetrics) {
  EXPECT_EQ(
      NegotiateFormat(
          "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;"
          "q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/"
          "plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/"
          "plain;version=0.0.4;q=0.2,*/*;q=0.1"),
      ExpositionFormat::kOpenMetrics100);
}

TEST(NegotiateFormatTest, FallsBackToText) {
  EXPECT_EQ(NegotiateFormat(""), ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("text/plain;version=0.0.4"),
            ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("application/json"), ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;q=0,text/plain"),
            ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;version=2.0.0"),
            ExpositionFormat::kText004);
  EXPECT_EQ(
      NegotiateFormat("text/plain;q=0.9, application/openmetrics-text;q=0.3"),
      ExpositionFormat::kText004);
}

TEST(ContentTypeTest, CarriesVersion) {
  EXPECT_EQ(ContentType(ExpositionFormat::kText004),
            "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(ContentType(ExpositionFormat::kOpenMetrics100),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

}  // namespace
}  // namespace rnic
