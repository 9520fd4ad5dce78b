#include "collectors/fabric/private_data.h"

#include <gtest/gtest.h>

namespace rnic::fabric {
namespace {

Hello Request() {
  return Hello{HelloKind::kRequest, kOpSend | kOpWrite, 4096,
               0x1122334455667788ull, 0xabcdef01u};
}

TEST(PrivateDataTest, RoundTripFitsTheCmRequest) {
  const auto bytes = EncodeHello(Request());
  // Within the 56 bytes rdma_cm leaves of an IB CM REQ (and what an
  // iWARP MPA request carries).
  EXPECT_EQ(bytes.size(), 20u);
  const auto r = ParseHello(bytes, HelloKind::kRequest, 65536);
  ASSERT_TRUE(r.ok) << HelloErrorName(r.error);
  EXPECT_EQ(r.hello, Request());
}

TEST(PrivateDataTest, ZeroPaddingIsAcceptedOtherPaddingIsNot) {
  auto bytes = EncodeHello(Request());
  bytes.resize(56, 0);
  EXPECT_TRUE(ParseHello(bytes, HelloKind::kRequest, 65536).ok);
  bytes[40] = 1;
  const auto r = ParseHello(bytes, HelloKind::kRequest, 65536);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, HelloError::kBadReserved);
}

struct Case {
  const char* name;
  std::size_t at;
  std::uint8_t value;
  HelloError want;
};

TEST(PrivateDataTest, EachFieldIsChecked) {
  const Case cases[] = {
      {"magic", 0, 0x00, HelloError::kBadMagic},
      {"version", 2, 2, HelloError::kBadVersion},
      {"kind", 3, 0x83, HelloError::kBadKind},
      {"no operation", 3, 0x00, HelloError::kBadOps},
      {"unknown operation", 3, 0x09, HelloError::kBadOps},
      {"size zero", 4, 0, HelloError::kBadSize},
  };
  for (const auto& c : cases) {
    auto bytes = EncodeHello(Request());
    if (std::string(c.name) == "size zero") {
      bytes[4] = bytes[5] = bytes[6] = bytes[7] = 0;
    } else {
      bytes[c.at] = c.value;
    }
    const auto r = ParseHello(bytes, HelloKind::kRequest, 65536);
    EXPECT_FALSE(r.ok) << c.name;
    EXPECT_EQ(r.error, c.want) << c.name;
  }
}

TEST(PrivateDataTest, SizeAboveTheLimitAndShortInputAreRefused) {
  auto h = Request();
  h.max_size = 65537;
  auto r = ParseHello(EncodeHello(h), HelloKind::kRequest, 65536);
  EXPECT_EQ(r.error, HelloError::kBadSize);
  const auto bytes = EncodeHello(Request());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    r = ParseHello(std::span(bytes.data(), n), HelloKind::kRequest, 65536);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, HelloError::kShort);
  }
}

TEST(PrivateDataTest, AReplyIsNoRequest) {
  auto h = Request();
  h.kind = HelloKind::kReply;
  const auto bytes = EncodeHello(h);
  EXPECT_TRUE(ParseHello(bytes, HelloKind::kReply, 65536).ok);
  EXPECT_EQ(ParseHello(bytes, HelloKind::kRequest, 65536).error,
            HelloError::kBadKind);
}

TEST(PrivateDataTest, ErrorNamesAreLabelValues) {
  EXPECT_EQ(HelloErrorName(HelloError::kBadMagic), "bad_magic");
  EXPECT_EQ(HelloErrorName(HelloError::kShort), "short");
}

}  // namespace
}  // namespace rnic::fabric
