#include "exporter/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <thread>
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

// The output buffer starts at a quarter of the input: bytes that do not
// compress need the second try, at libdeflate's bound.
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

// Scrapes in parallel: one uses the shared compressor, the others their own.
TEST(GzipTest, ParallelCompressionsInflateBack) {
  std::vector<std::string> texts;
  for (int t = 0; t < 8; ++t) {
    std::string text;
    for (int i = 0; i < 2000; ++i) {
      text += "rnic_port_rcv_data_total{device=\"mlx5_" + std::to_string(t) +
              "\",port=\"" + std::to_string(i) + "\"} " +
              std::to_string(i * 7919) + "\n";
    }
    texts.push_back(std::move(text));
  }
  std::vector<std::string> out(texts.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        auto z = GzipCompress(texts[t]);
        out[t] = z.ok() ? std::move(z).value() : std::string();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < texts.size(); ++t) {
    ASSERT_FALSE(out[t].empty()) << t;
    EXPECT_EQ(Gunzip(out[t], texts[t].size()), texts[t]) << t;
  }
}

}  // namespace
}  // namespace rnic
