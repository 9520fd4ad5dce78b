#include "collectors/common/host_port.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(HostPortTest, FormsOfAnAddress) {
  auto a = ParseHostPort("node1:9709");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "node1");
  EXPECT_EQ(a->port, 9709);
  EXPECT_FALSE(a->bracketed);

  auto b = ParseHostPort(":9709");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "");
  EXPECT_EQ(b->port, 9709);

  auto c = ParseHostPort("node1");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->port.has_value());

  auto d = ParseHostPort("[fe80::1]:0");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->host, "fe80::1");
  EXPECT_EQ(d->port, 0);
  EXPECT_TRUE(d->bracketed);

  auto e = ParseHostPort("[::1]");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->port.has_value());
}

// Each refusal says what is wrong; none throws (a port of 20 digits once
// aborted the exporter through std::stoul).
TEST(HostPortTest, BadAddressesAreErrorsNamingTheProblem) {
  for (const char* text : {":99999999999999999999", "h:65536", "h:-1",
                           "h:", "h:9x", ":+80", "h: 80"}) {
    auto r = ParseHostPort(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find("bad port"), std::string::npos)
        << r.error().message;
  }
  EXPECT_NE(ParseHostPort("::1").error().message.find("[brackets]"),
            std::string::npos);
  EXPECT_NE(ParseHostPort("[::1").error().message.find("unclosed"),
            std::string::npos);
  EXPECT_NE(ParseHostPort("[::1]x").error().message.find("bad address"),
            std::string::npos);
}

}  // namespace
}  // namespace rnic
