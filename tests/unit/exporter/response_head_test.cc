#include "exporter/response_head.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(ResponseHeadTest, KeepAliveFollowsCivetWebsRule) {
  EXPECT_TRUE(KeepAliveAfter("1.1", nullptr, 200));
  EXPECT_FALSE(KeepAliveAfter("1.0", nullptr, 200));
  EXPECT_TRUE(KeepAliveAfter("1.0", "Keep-Alive", 200));
  EXPECT_TRUE(KeepAliveAfter("1.1", "TE, keep-alive ", 200));
  EXPECT_FALSE(KeepAliveAfter("1.1", "close", 200));
  EXPECT_FALSE(KeepAliveAfter("1.1", "keep-alive-ish", 200));
  // CivetWeb closes after a 401 whatever the client asked.
  EXPECT_FALSE(KeepAliveAfter("1.1", "keep-alive", 401));
}

TEST(ResponseHeadTest, DateIsImfFixdate) {
  EXPECT_EQ(HttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(HttpDate(1796142381), "Tue, 01 Dec 2026 16:26:21 GMT");
}

TEST(ResponseHeadTest, HeadLinesInOrderEndedByABlankLine) {
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.headers = {{"Content-Encoding", "gzip"}, {"Vary", "Accept"}};
  r.body = "12345";
  std::string out = "x";  // appended to, not replaced
  AppendResponseHead(r, "OK", true, 0, out);
  EXPECT_EQ(out,
            "xHTTP/1.1 200 OK\r\n"
            "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 5\r\n"
            "Content-Encoding: gzip\r\n"
            "Vary: Accept\r\n"
            "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n"
            "Connection: keep-alive\r\n"
            "\r\n");
  out.clear();
  r.status = 401;
  r.headers = {};
  AppendResponseHead(r, "Unauthorized", false, 0, out);
  EXPECT_EQ(out.substr(0, out.find("\r\n")), "HTTP/1.1 401 Unauthorized");
  EXPECT_NE(out.find("\r\nConnection: close\r\n\r\n"), std::string::npos);
}

}  // namespace
}  // namespace rnic
