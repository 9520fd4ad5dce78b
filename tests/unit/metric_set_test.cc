#include "collectors/common/metric_set.h"

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
  const auto& m = set.families()[0].metric[0];
  ASSERT_EQ(m.histogram.bucket.size(), 3u);
  EXPECT_EQ(m.histogram.bucket.back().cumulative_count, 5u);
  EXPECT_TRUE(std::isinf(m.histogram.bucket.back().upper_bound));
}

}  // namespace
}  // namespace rnic
