#include "exporter/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace rnic {
namespace {

TEST(GzipTest, AcceptEncodingHonoursQZero) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("deflate, gzip;q=0.8"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("xgzipx"));
}

TEST(GzipTest, RoundTrips) {
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "rnic_hw_sent_pkts_total{device=\"rxe0\",port=\"1\"} 12345\n";
  auto z = GzipCompress(text);
  ASSERT_TRUE(z.ok());
  EXPECT_LT(z->size(), text.size() / 10);
  EXPECT_EQ(static_cast<unsigned char>((*z)[0]), 0x1f);  // gzip magic
  z_stream zs{};
  ASSERT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string back(text.size() + 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(z->data());
  zs.avail_in = static_cast<uInt>(z->size());
  zs.next_out = reinterpret_cast<Bytef*>(back.data());
  zs.avail_out = static_cast<uInt>(back.size());
  ASSERT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  back.resize(zs.total_out);
  inflateEnd(&zs);
  EXPECT_EQ(back, text);
}

}  // namespace
}  // namespace rnic
