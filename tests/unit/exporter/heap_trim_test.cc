#include "exporter/heap_trim.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace rnic {
namespace {

using Clock = HeapTrimmer::Clock;
using std::chrono::milliseconds;

TEST(HeapTrimmerTest, FirstCallTrimsThenAtMostOncePerPeriod) {
  HeapTrimmer t(milliseconds(1000));
  const Clock::time_point t0{std::chrono::hours(1)};
  EXPECT_TRUE(t.MaybeTrim(t0));
  EXPECT_FALSE(t.MaybeTrim(t0 + milliseconds(1)));
  EXPECT_FALSE(t.MaybeTrim(t0 + milliseconds(999)));
  EXPECT_TRUE(t.MaybeTrim(t0 + milliseconds(1000)));
  EXPECT_FALSE(t.MaybeTrim(t0 + milliseconds(1500)));
  EXPECT_TRUE(t.MaybeTrim(t0 + milliseconds(2500)));
}

TEST(HeapTrimmerTest, ConcurrentScrapesTrimOnce) {
  HeapTrimmer t(std::chrono::hours(1));
  const Clock::time_point now{std::chrono::hours(2)};
  std::atomic<int> trimmed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (t.MaybeTrim(now)) ++trimmed;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(trimmed.load(), 1);
}

}  // namespace
}  // namespace rnic
