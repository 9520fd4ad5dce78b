#include "collectors/common/base64.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

// RFC 4648 section 10's vectors, both ways.
TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(EncodeBase64(plain), coded);
    std::string back;
    ASSERT_TRUE(DecodeBase64(coded, back)) << coded;
    EXPECT_EQ(back, plain);
  }
}

TEST(Base64Test, EveryByteRoundTrips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string back;
  ASSERT_TRUE(DecodeBase64(EncodeBase64(all), back));
  EXPECT_EQ(back, all);
}

TEST(Base64Test, NonCanonicalInputIsRefused) {
  std::string out;
  for (const char* bad : {"Zg=", "Zg=a", "Z===", "Zm9v!", "=Zg=", "Zg==Zg=="}) {
    EXPECT_FALSE(DecodeBase64(bad, out)) << bad;
  }
}

}  // namespace
}  // namespace rnic
