#include "exporter/listen_socket.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(ListenSocketTest, BindsAndNamesTheBoundPort) {
  auto s = OpenListenSocket("127.0.0.1:0");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->fd.ok());
  EXPECT_EQ(s->address.rfind("127.0.0.1:", 0), 0u) << s->address;
  EXPECT_NE(s->address, "127.0.0.1:0");
}

TEST(ListenSocketTest, Ipv6InBrackets) {
  auto s = OpenListenSocket("[::1]:0");
  if (!s.ok() && s.error().errno_value == EADDRNOTAVAIL) {
    GTEST_SKIP() << "no IPv6 loopback here";
  }
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->address.rfind("[::1]:", 0), 0u) << s->address;
}

TEST(ListenSocketTest, ErrorsNameTheFlag) {
  auto s = OpenListenSocket("[nope]:9709");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "--web.listen-address [nope]:9709: not an IPv6 address in the "
            "brackets");
  s = OpenListenSocket("127.0.0.1");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "--web.listen-address 127.0.0.1: expected host:port or :port");
  auto first = OpenListenSocket("127.0.0.1:0");
  ASSERT_TRUE(first.ok());
  s = OpenListenSocket(first->address);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.error().message.find("cannot listen on " + first->address + ": bind: "),
      std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace rnic
