#include "collectors/metrics/metric_set.h"

#include <gtest/gtest.h>

#include <cmath>

namespace rnic {
namespace {

TEST(MetricSetTest, GroupsSamplesOfOneFamily) {
  MetricSet set;
  set.AddCounter("rnic_x_total", "x", {{"device", "a"}}, 1);
  set.AddCounter("rnic_x_total", "ignored", {{"device", "b"}}, 2);
  set.AddGauge("rnic_y", "y", {}, 3);
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.families()[0].help, "x");
  ASSERT_EQ(set.families()[0].metric.size(), 2u);
  EXPECT_EQ(LabelValue(set.families()[0].metric[1], "device"), "b");
  EXPECT_EQ(set.SeriesCount(), 3u);
}

TEST(MetricSetTest, MergeJoinsSameNamedFamilies) {
  MetricSet a, b;
  a.AddGauge("rnic_g", "g", {{"port", "1"}}, 1);
  b.AddGauge("rnic_g", "g", {{"port", "2"}}, 2);
  b.AddGauge("rnic_h", "h", {}, 2);
  a.Merge(std::move(b));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.families()[0].metric.size(), 2u);
}

TEST(MetricSetTest, HistogramGetsInfBucketFromCount) {
  MetricSet set;
  set.AddHistogram("rnic_h_seconds", "h", {}, {{0.1, 1}, {1.0, 3}}, 5, 2.5);
  const auto fams = set.families();
  const auto& m = fams[0].metric[0];
  ASSERT_EQ(m.histogram.bucket.size(), 3u);
  EXPECT_EQ(m.histogram.bucket.back().cumulative_count, 5u);
  EXPECT_TRUE(std::isinf(m.histogram.bucket.back().upper_bound));
}

constexpr FamilyDesc kPortThing{"rnic_port_thing_total",
                                prometheus::MetricType::Counter, "device,port",
                                "A thing per port."};

TEST(MetricSetTest, DeclaredFamiliesShareOneLabelSetAcrossSamples) {
  const LabelSetPtr port =
      LabelSet::Make({{"device", "mlx5_0"}, {"port", "1"}});
  MetricSet set;
  set.Add(kPortThing, port, 1);
  set.Add(kPortThing, port, 2);
  EXPECT_EQ(port.use_count(), 3);  // no copy of the labels per sample
  ASSERT_EQ(set.raw().size(), 1u);
  EXPECT_EQ(set.raw()[0].desc, &kPortThing);
  const auto fams = set.families();
  ASSERT_EQ(fams.size(), 1u);
  EXPECT_EQ(fams[0].name, "rnic_port_thing_total");
  EXPECT_EQ(fams[0].help, "A thing per port.");
  EXPECT_EQ(fams[0].type, prometheus::MetricType::Counter);
  ASSERT_EQ(fams[0].metric.size(), 2u);
  EXPECT_EQ(LabelValue(fams[0].metric[1], "port"), "1");
  EXPECT_EQ(fams[0].metric[1].counter.value, 2);
}

TEST(LabelSetTest, RendersOnceEscapedAndExtends) {
  const LabelSetPtr l = LabelSet::Make({{"device", "a\"b\n"}, {"port", "1"}});
  EXPECT_EQ(l->text(), "device=\"a\\\"b\\n\",port=\"1\"");
  const LabelSetPtr p = l->With({{"priority", "3"}});
  EXPECT_EQ(p->labels().size(), 3u);
  EXPECT_EQ(p->Value("priority"), "3");
  EXPECT_EQ(p->text(), l->text() + ",priority=\"3\"");
  EXPECT_EQ(LabelSet::Empty()->text(), "");
}

TEST(FamilyTest, InternedFamiliesAreStableAndFirstHelpWins) {
  const FamilyDesc& a = InternFamily("rnic_interned_total",
                                     prometheus::MetricType::Counter, "", "a");
  const FamilyDesc& b = InternFamily("rnic_interned_total",
                                     prometheus::MetricType::Counter, "", "b");
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.help, "a");
}

TEST(FamilyTest, OneRuleTurnsKernelNamesIntoMetricNames) {
  EXPECT_EQ(MetricNamePart("rx_write_requests"), "rx_write_requests");
  EXPECT_EQ(MetricNamePart("RcvOverflow,32"), "rcv_overflow_32");
  EXPECT_EQ(MetricNamePart("Pio Reserved 31"), "pio_reserved_31");
  EXPECT_EQ(MetricNamePart("ip4InReceives"), "ip4_in_receives");
  EXPECT_EQ(MetricNamePart("TxFlits"), "tx_flits");
  EXPECT_EQ(MetricNamePart("DCRcvErr"), "dc_rcv_err");
}

TEST(FamilyTest, PlaceholderMatching) {
  EXPECT_TRUE(FamilyNameMatches("rnic_hw_<counter>_total", "rnic_hw_x_total"));
  EXPECT_FALSE(FamilyNameMatches("rnic_hw_<counter>_total", "rnic_hw__total"));
  EXPECT_FALSE(FamilyNameMatches("rnic_hw_<counter>_total", "rnic_hw_x"));
  EXPECT_TRUE(FamilyNameMatches("rnic_port_state", "rnic_port_state"));
  EXPECT_FALSE(FamilyNameMatches("rnic_port_state", "rnic_port_states"));
}

}  // namespace
}  // namespace rnic
