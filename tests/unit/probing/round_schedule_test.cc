#include "collectors/probing/round_schedule.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace rnic::probe {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(RoundScheduleTest, GapsStayWithinHalfToOneAndAHalfIntervals) {
  RoundSchedule s(milliseconds(1000), 7);
  for (int i = 0; i < 10000; ++i) {
    const auto gap = s.NextGap();
    ASSERT_GE(gap, milliseconds(500));
    ASSERT_LT(gap, milliseconds(1500));
  }
}

TEST(RoundScheduleTest, MeanGapIsTheInterval) {
  RoundSchedule s(milliseconds(1000), 11);
  double sum = 0;
  constexpr int kRounds = 10000;
  for (int i = 0; i < kRounds; ++i) {
    sum += std::chrono::duration<double>(s.NextGap()).count();
  }
  // The standard error of the mean of 10,000 uniform gaps is 2.9 ms.
  EXPECT_NEAR(sum / kRounds, 1.0, 0.015);
}

// What the schedule is for: against work that repeats every interval (a
// scrape), round starts fall at every phase alike, not at one.
TEST(RoundScheduleTest, RoundStartsCoverEveryPhaseOfAPeriodicScrape) {
  const nanoseconds period = milliseconds(1000);
  RoundSchedule s(period, 3);
  std::array<int, 10> bins{};
  nanoseconds t{0};
  constexpr int kRounds = 10000;
  for (int i = 0; i < kRounds; ++i) {
    t += s.NextGap();
    ++bins[static_cast<std::size_t>((t % period) * 10 / period)];
  }
  for (std::size_t b = 0; b < bins.size(); ++b) {
    EXPECT_GT(bins[b], kRounds / 20) << "phase bin " << b;
    EXPECT_LT(bins[b], kRounds * 3 / 20) << "phase bin " << b;
  }
}

TEST(RoundScheduleTest, HostsSeededApartDrawApart) {
  RoundSchedule a(milliseconds(1000), 1);
  RoundSchedule b(milliseconds(1000), 2);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += a.NextGap() == b.NextGap() ? 1 : 0;
  EXPECT_LT(same, 5);
}

TEST(RoundScheduleTest, AnIntervalTooShortToSplitIsKept) {
  RoundSchedule s(nanoseconds(1), 5);
  EXPECT_EQ(s.NextGap(), nanoseconds(1));
}

}  // namespace
}  // namespace rnic::probe
