#include <gtest/gtest.h>

#include "collectors/fabric/responder.h"

namespace rnic::fabric {
namespace {

const std::vector<std::uint8_t> kGood =
    EncodeHello(Hello{HelloKind::kRequest, kOpSend | kOpRead, 64, 0x1000, 7});

TEST(ResponderAdmitTest, AcceptsAPeerWithAValidHello) {
  const auto a = Admit(true, 0, 1, kGood);
  EXPECT_TRUE(a.accept);
  EXPECT_EQ(a.hello.ops, kOpSend | kOpRead);
  EXPECT_EQ(a.hello.max_size, 64u);
}

TEST(ResponderAdmitTest, SourceThenCapThenPrivateData) {
  const std::vector<std::uint8_t> garbage(20, 0xff);
  // An unknown source is refused as such, whatever it sends.
  EXPECT_EQ(Admit(false, 0, 1, garbage).reason, "not_in_peer_set");
  EXPECT_EQ(Admit(false, 5, 1, kGood).reason, "not_in_peer_set");
  EXPECT_EQ(Admit(true, 1, 1, kGood).reason, "too_many_connections");
  EXPECT_EQ(Admit(true, 0, 1, garbage).reason, "bad_magic");
  EXPECT_EQ(Admit(true, 0, 1, {}).reason, "short");
  EXPECT_FALSE(Admit(true, 0, 1, garbage).accept);
}

}  // namespace
}  // namespace rnic::fabric
