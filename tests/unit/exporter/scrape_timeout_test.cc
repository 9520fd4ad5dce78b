#include "exporter/scrape_timeout.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(ScrapeTimeoutTest, ParseSecondsIsStrictAndFinite) {
  EXPECT_EQ(ParseSeconds("10"), 10.0);
  EXPECT_EQ(ParseSeconds(" 9.5 "), 9.5);
  EXPECT_EQ(ParseSeconds("1e300"), 1e300);  // finite: the caller bounds it
  for (const char* bad : {"", " ", "nan", "NaN", "inf", "-inf", "infinity",
                          "1e400", "10s", "garbage", "1,5", "0x"}) {
    EXPECT_FALSE(ParseSeconds(bad).has_value()) << bad;
  }
}

TEST(ScrapeTimeoutTest, HeaderFallsBackToDefaultOrIsCapped) {
  // default 10 s, offset 0.5 s
  auto d = [](const char* h) { return ScrapeDeadlineSeconds(h, 10, 0.5); };
  EXPECT_DOUBLE_EQ(d(""), 9.5);
  EXPECT_DOUBLE_EQ(d("4"), 3.5);
  EXPECT_DOUBLE_EQ(d("0.6"), 0.3);  // the offset takes at most half
  for (const char* bad :
       {"nan", "inf", "-inf", "-1", "0", "garbage", "1e400", "5 seconds"}) {
    EXPECT_DOUBLE_EQ(d(bad), 9.5) << bad;
  }
  EXPECT_DOUBLE_EQ(d("1e300"), kMaxTimeoutSeconds - 0.5);
  EXPECT_DOUBLE_EQ(d("3601"), kMaxTimeoutSeconds - 0.5);
}

}  // namespace
}  // namespace rnic
