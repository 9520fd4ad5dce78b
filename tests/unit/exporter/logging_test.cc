#include "exporter/logging.h"

#include <gtest/gtest.h>

#include <string>

#include "collectors/common/log_once.h"

namespace rnic {
namespace {

std::string Format(const std::string& format, spdlog::level::level_enum level,
                   const std::string& payload) {
  spdlog::details::log_msg msg("rnic", level, payload);
  spdlog::memory_buf_t out;
  MakeLogFormatter(format)->format(msg, out);
  return std::string(out.data(), out.size());
}

// Drops the leading ts=... / {"ts":"...", which depends on the clock.
std::string AfterTimestamp(const std::string& line, const std::string& from) {
  auto at = line.find(from);
  return at == std::string::npos ? line : line.substr(at);
}

TEST(LoggingTest, LogfmtKeepsCollectorAsItsOwnKey) {
  const std::string payload =
      LogfmtLine("netlink_stat", "request failed",
                 {{"part", "stat"},
                  {"device", "mlx5_0"},
                  {"err", "stat: Permission denied (13)"}});
  const std::string line = Format("logfmt", spdlog::level::warn, payload);
  EXPECT_EQ(line.rfind("ts=", 0), 0u) << line;
  EXPECT_EQ(AfterTimestamp(line, " level="),
            " level=warn collector=netlink_stat msg=\"request failed\" "
            "part=stat device=mlx5_0 err=\"stat: Permission denied (13)\"\n");
}

TEST(LoggingTest, JsonKeepsCollectorAsItsOwnKey) {
  const std::string payload =
      LogfmtLine("sysfs", "value skipped",
                 {{"file", "a b"}, {"err", "quote \" and\nnewline"}});
  const std::string line = Format("json", spdlog::level::info, payload);
  EXPECT_EQ(line.rfind("{\"ts\":\"", 0), 0u) << line;
  EXPECT_EQ(AfterTimestamp(line, ",\"level\""),
            ",\"level\":\"info\",\"collector\":\"sysfs\","
            "\"msg\":\"value skipped\",\"file\":\"a b\","
            "\"err\":\"quote \\\" and\\nnewline\"}\n");
}

TEST(LoggingTest, PlainMessagesBecomeMsg) {
  EXPECT_EQ(AfterTimestamp(Format("logfmt", spdlog::level::err, "plain text"),
                           " level="),
            " level=error msg=\"plain text\"\n");
  EXPECT_EQ(AfterTimestamp(Format("json", spdlog::level::debug, "plain \"x\""),
                           ",\"level\""),
            ",\"level\":\"debug\",\"msg\":\"plain \\\"x\\\"\"}\n");
}

}  // namespace
}  // namespace rnic
