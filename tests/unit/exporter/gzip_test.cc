#include "exporter/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>

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

std::string Gunzip(const std::string& z, std::size_t size) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string back(size + 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
  zs.avail_in = static_cast<uInt>(z.size());
  zs.next_out = reinterpret_cast<Bytef*>(back.data());
  zs.avail_out = static_cast<uInt>(back.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  back.resize(zs.total_out);
  inflateEnd(&zs);
  return back;
}

// The output buffer starts at a quarter of the input and grows: bytes that
// do not compress take several rounds.
TEST(GzipTest, IncompressibleBodyGrowsTheOutput) {
  std::string text;
  std::uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1664525u + 1013904223u;
    text.push_back(static_cast<char>(x >> 24));
  }
  auto z = GzipCompress(text);
  ASSERT_TRUE(z.ok());
  EXPECT_GT(z->size(), text.size());
  EXPECT_EQ(Gunzip(*z, text.size()), text);
  auto empty = GzipCompress("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(Gunzip(*empty, 0), "");
}

TEST(GzipTest, RoundTrips) {
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "rnic_hw_sent_pkts_total{device=\"rxe0\",port=\"1\"} 12345\n";
  auto z = GzipCompress(text);
  ASSERT_TRUE(z.ok());
  EXPECT_LT(z->size(), text.size() / 10);
  EXPECT_EQ(static_cast<unsigned char>((*z)[0]), 0x1f);  // gzip magic
  EXPECT_EQ(Gunzip(*z, text.size()), text);
}

}  // namespace
}  // namespace rnic
