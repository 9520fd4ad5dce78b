#include "exporter/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

std::string Random(std::size_t n, std::uint32_t seed) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    s.push_back(static_cast<char>(seed >> 24));
  }
  return s;
}

// Every match length (4..258) near, and the distances from 1 to the
// window's edge (32768) and just past it: the fixed-code tables for lengths
// and distances, and their extra bits, are each exercised and checked by
// zlib. A source is random bytes padded with one repeated byte, so the
// encoder's table still holds it when its copy comes.
TEST(GzipTest, EveryMatchLengthAndDistanceInflatesBack) {
  auto copy_at = [](std::string& text, std::size_t distance, std::size_t len,
                    std::uint32_t seed) {
    const std::size_t src = std::min(distance, len);
    text += Random(src, seed);
    text += std::string(distance - src, '.');
    for (std::size_t i = 0; i < len; ++i) {
      text.push_back(text[text.size() - distance]);  // may overlap (d < len)
    }
    text += Random(3, seed + 1);
  };
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> cases;
  std::vector<std::size_t> every;
  for (std::size_t len = 4; len <= 258; ++len) every.push_back(len);
  for (std::size_t d : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 17, 25, 33, 100, 1000}) {
    cases.push_back({d, every});
  }
  for (std::size_t d : {4096, 16384, 24577, 32767, 32768, 32769}) {
    cases.push_back({d, {4, 5, 11, 100, 257, 258}});
  }
  for (const auto& [distance, lengths] : cases) {
    std::string text;
    for (std::size_t len : lengths) {
      copy_at(text, distance, len, static_cast<std::uint32_t>(len));
    }
    auto z = GzipCompress(text);
    ASSERT_TRUE(z.ok());
    ASSERT_EQ(Gunzip(*z, text.size()), text) << "distance " << distance;
    if (distance <= 32768) {
      // The copies were coded as matches: more than the random bytes and
      // padding alone would take.
      std::string without;
      for (std::size_t len : lengths) {
        const std::size_t src = std::min(distance, len);
        without += Random(src, static_cast<std::uint32_t>(len));
        without += std::string(distance - src, '.');
        without += Random(3, static_cast<std::uint32_t>(len) + 1);
      }
      auto base = GzipCompress(without);
      ASSERT_TRUE(base.ok());
      const std::size_t copied = text.size() - without.size();
      EXPECT_LT(z->size(), base->size() + copied / 4)
          << "distance " << distance;
    }
  }
}

TEST(GzipTest, ShortBodiesAndLongRunsInflateBack) {
  for (std::size_t n = 0; n < 40; ++n) {
    const std::string text = Random(n, 7) + std::string(n, 'a');
    auto z = GzipCompress(text);
    ASSERT_TRUE(z.ok());
    EXPECT_EQ(Gunzip(*z, text.size()), text) << n;
  }
  // Overlapping copies (distance 1) over 258-byte steps.
  const std::string run(100000, 'x');
  auto z = GzipCompress(run);
  ASSERT_TRUE(z.ok());
  EXPECT_LT(z->size(), run.size() / 100);
  EXPECT_EQ(Gunzip(*z, run.size()), run);
}

}  // namespace
}  // namespace rnic
