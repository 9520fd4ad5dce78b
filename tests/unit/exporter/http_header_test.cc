#include "exporter/http_header.h"

#include <gtest/gtest.h>

#include <vector>

#include "exporter/exposition.h"
#include "exporter/gzip.h"

namespace rnic {
namespace {

TEST(HttpHeaderTest, ItemsWithQualityAndVersion) {
  std::vector<HeaderItem> items;
  ForEachHeaderItem(" text/plain;version=0.0.4;Q=0.5 ,gzip, x;q=nan ,",
                    [&](const HeaderItem& i) { items.push_back(i); });
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].value, "text/plain");
  EXPECT_EQ(items[0].version, "0.0.4");
  EXPECT_DOUBLE_EQ(items[0].q, 0.5);
  EXPECT_EQ(items[1].value, "gzip");
  EXPECT_DOUBLE_EQ(items[1].q, 1.0);
  EXPECT_DOUBLE_EQ(items[2].q, 0.0);  // not a quality value
}

// Accept and Accept-Encoding read quality values the same way.
TEST(HttpHeaderTest, BothHeadersShareOneReading) {
  EXPECT_TRUE(AcceptsGzip("GZIP;q=0.1"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=nan"));
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;version=1.0.0;q=nan,"
                            "text/plain;q=0.1"),
            ExpositionFormat::kText004);
}

}  // namespace
}  // namespace rnic
