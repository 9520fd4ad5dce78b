#include "collectors/probe/histogram.h"

#include <gtest/gtest.h>

#include <cmath>

namespace rnic::probe {
namespace {

TEST(HistogramTest, BucketsAreInclusiveUpperBounds) {
  Histogram h({1, 2, 5});
  h.Observe(0.5);
  h.Observe(1);  // le="1" includes 1
  h.Observe(1.5);
  h.Observe(5);
  h.Observe(7);  // only +Inf
  const auto c = h.Cumulative();
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], (std::pair<double, std::uint64_t>{1, 2}));
  EXPECT_EQ(c[1], (std::pair<double, std::uint64_t>{2, 3}));
  EXPECT_EQ(c[2], (std::pair<double, std::uint64_t>{5, 4}));
  EXPECT_EQ(h.count(), 5u);
  EXPECT_DOUBLE_EQ(h.sum(), 15.0);
}

TEST(HistogramTest, QuantileInterpolatesLikeHistogramQuantile) {
  Histogram h({1, 2, 4});
  EXPECT_TRUE(std::isnan(h.Quantile(0.5)));
  for (int i = 0; i < 10; ++i) h.Observe(1.5);  // all in (1,2]
  EXPECT_DOUBLE_EQ(h.Quantile(0.5), 1.5);
  EXPECT_DOUBLE_EQ(h.Quantile(1.0), 2.0);
  h.Observe(100);  // +Inf bucket: clamps to the highest bound
  EXPECT_DOUBLE_EQ(h.Quantile(1.0), 4.0);
}

TEST(HistogramTest, LatencyBucketsSpanHalfMicrosecondTo100ms) {
  const auto& b = LatencyBuckets();
  EXPECT_DOUBLE_EQ(b.front(), 0.5e-6);
  EXPECT_DOUBLE_EQ(b.back(), 100e-3);
  EXPECT_GE(b.size(), 18u);
  EXPECT_LE(b.size(), 24u);
  for (std::size_t i = 1; i < b.size(); ++i) {
    EXPECT_LT(b[i - 1], b[i]);
    // Roughly log-spaced: no step more than 2.5x, none under 1.3x.
    EXPECT_LE(b[i] / b[i - 1], 2.5);
    EXPECT_GE(b[i] / b[i - 1], 1.3);
  }
}

TEST(HistogramTest, MrBucketsCoverSecondsOfPinning) {
  const auto& b = MrBuckets();
  EXPECT_LE(b.front(), 1e-6);
  EXPECT_GE(b.back(), 10.0);
  for (std::size_t i = 1; i < b.size(); ++i) EXPECT_LT(b[i - 1], b[i]);
}

}  // namespace
}  // namespace rnic::probe
