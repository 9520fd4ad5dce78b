#include "collectors/common/counter_tracker.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rnic {
namespace {

constexpr std::uint64_t k2to32 = std::uint64_t{1} << 32;

TEST(CounterMaxTest, Widths) {
  EXPECT_EQ(CounterMax(4), 15u);
  EXPECT_EQ(CounterMax(8), 255u);
  EXPECT_EQ(CounterMax(16), 65535u);
  EXPECT_EQ(CounterMax(32), 4294967295u);
  EXPECT_EQ(CounterMax(64), ~std::uint64_t{0});
}

TEST(ExtendCounterTest, WrapsAcrossSeveralScrapes) {
  WrapState s;
  // 32-bit counter climbing fast: wraps three times over six scrapes.
  const std::uint64_t raws[] = {4000000000u, 4290000000u, 100000000u,
                                3000000000u, 50u,         4294967000u,
                                2000000u};
  const std::uint64_t want[] = {4000000000u,          4290000000u,
                                k2to32 + 100000000u,  k2to32 + 3000000000u,
                                2 * k2to32 + 50u,     2 * k2to32 + 4294967000u,
                                3 * k2to32 + 2000000u};
  std::uint64_t last = 0;
  for (std::size_t i = 0; i < std::size(raws); ++i) {
    const ExtendedValue v = ExtendCounter(s, raws[i], 32);
    EXPECT_EQ(v.value, want[i]) << "scrape " << i;
    EXPECT_GE(v.value, last) << "monotonic at scrape " << i;
    last = v.value;
  }
}

TEST(ExtendCounterTest, ReportsWhatHappened) {
  WrapState s;
  EXPECT_EQ(ExtendCounter(s, 10, 32).change, CounterChange::kFirst);
  EXPECT_EQ(ExtendCounter(s, 10, 32).change, CounterChange::kSteady);
  EXPECT_EQ(ExtendCounter(s, 4294967290u, 32).change, CounterChange::kSteady);
  EXPECT_EQ(ExtendCounter(s, 5, 32).change, CounterChange::kWrap);
}

TEST(ExtendCounterTest, ImplausibleWrapIsAReset) {
  WrapState s;
  ASSERT_EQ(ExtendCounter(s, 1768, 32).value, 1768u);
  // From 1768 back to 3: a wrap would mean ~4.29e9 events since the last
  // scrape. It is a re-created device counting from zero again.
  const ExtendedValue v = ExtendCounter(s, 3, 32);
  EXPECT_EQ(v.change, CounterChange::kReset);
  EXPECT_EQ(v.value, 3u);
}

TEST(ExtendCounterTest, ResetAfterWrapDropsTheOffset) {
  WrapState s;
  (void)ExtendCounter(s, 4294967000u, 32);
  ASSERT_EQ(ExtendCounter(s, 1000, 32).value, k2to32 + 1000);
  ASSERT_EQ(ExtendCounter(s, 2000000, 32).value, k2to32 + 2000000);
  const ExtendedValue v = ExtendCounter(s, 7, 32);
  EXPECT_EQ(v.change, CounterChange::kReset);
  EXPECT_EQ(v.value, 7u);  // Prometheus sees the reset
}

TEST(ExtendCounterTest, DecreaseOf64BitCounterIsAReset) {
  WrapState s;
  (void)ExtendCounter(s, 9000000000000u, 64);
  const ExtendedValue v = ExtendCounter(s, 8999999999999u, 64);
  EXPECT_EQ(v.change, CounterChange::kReset);
  EXPECT_EQ(v.value, 8999999999999u);
}

TEST(ExtendCounterTest, ValueAboveWidthMeansTheCounterIsWide) {
  // Same kernel name, other driver: duplicate_request is 32-bit on mlx5 and
  // 64-bit on rxe.
  WrapState s;
  (void)ExtendCounter(s, 5000000000u, 32);
  EXPECT_TRUE(s.wide);
  const ExtendedValue v = ExtendCounter(s, 4000000000u, 32);
  EXPECT_EQ(v.change, CounterChange::kReset);
  EXPECT_EQ(v.value, 4000000000u);
}

TEST(ExtendCounterTest, EightBitWrap) {
  WrapState s;
  (void)ExtendCounter(s, 250, 8);
  EXPECT_EQ(ExtendCounter(s, 4, 8).value, 256u + 4);
}

TEST(SaturationTest, AtMaxOnly) {
  EXPECT_TRUE(IsSaturated(65535, 16));
  EXPECT_FALSE(IsSaturated(65534, 16));
  EXPECT_TRUE(IsSaturated(255, 8));
  EXPECT_TRUE(IsSaturated(15, 4));
  EXPECT_TRUE(IsSaturated(4294967295u, 32));
  EXPECT_FALSE(IsSaturated(4294967296u, 32));  // width was wrong: not stuck
  EXPECT_FALSE(IsSaturated(~std::uint64_t{0}, 64));
}

}  // namespace
}  // namespace rnic
