#include "collectors/common/log_once.h"

#include <gtest/gtest.h>

#include "tests/unit/common/captured_log.h"

namespace rnic {
namespace {

TEST(LogfmtLine, CollectorIsItsOwnKeyAndValuesAreQuoted) {
  EXPECT_EQ(LogfmtLine("sysfs", "value skipped",
                       {{"file", "mlx5_0/ports/1/counters/x"},
                        {"err", "read: Invalid \"argument\""}}),
            "collector=sysfs msg=\"value skipped\" "
            "file=mlx5_0/ports/1/counters/x "
            "err=\"read: Invalid \\\"argument\\\"\"");
  EXPECT_EQ(LogfmtLine("roce", "", {{"k", "a=b"}}),
            "collector=roce msg=\"\" k=\"a=b\"");
}

TEST(LogOnce, LogsOncePerKeyAgainOnChangeAndAfterClear) {
  CapturedLog log;
  LogOnce once("netlink_stat");
  const Error einval = Error::FromErrno("stat", EINVAL);
  EXPECT_TRUE(
      once.Log(spdlog::level::warn, "stat:rxe0", "request failed", einval));
  EXPECT_FALSE(
      once.Log(spdlog::level::warn, "stat:rxe0", "request failed", einval));
  std::string first = log.Take();
  EXPECT_NE(first.find("collector=netlink_stat msg=\"request failed\" "
                       "key=stat:rxe0 err="),
            std::string::npos)
      << first;
  // Another errno is news.
  EXPECT_TRUE(once.Log(spdlog::level::warn, "stat:rxe0", "request failed",
                       Error::FromErrno("stat", ENODEV)));
  // Another key is independent.
  EXPECT_TRUE(
      once.Log(spdlog::level::warn, "stat:rxe1", "request failed", einval));
  once.Clear("stat:rxe0");
  EXPECT_FALSE(once.Seen("stat:rxe0"));
  EXPECT_TRUE(
      once.Log(spdlog::level::warn, "stat:rxe0", "request failed", einval));
  once.ClearIf([](std::string_view k) { return k.ends_with("rxe1"); });
  EXPECT_FALSE(once.Seen("stat:rxe1"));
  EXPECT_TRUE(once.Seen("stat:rxe0"));
}

}  // namespace
}  // namespace rnic
