#include "exporter/query_string.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(QueryStringTest, Decodes) {
  auto q = ParseQueryString("target=node-a%3A9709&device=mlx5_0&x=a+b&&flag");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->at("target"), "node-a:9709");
  EXPECT_EQ(q->at("device"), "mlx5_0");
  EXPECT_EQ(q->at("x"), "a b");
  EXPECT_EQ(q->at("flag"), "");
  EXPECT_EQ(ParseQueryString("a=1&a=2").value().at("a"), "2");
  EXPECT_TRUE(ParseQueryString("").value().empty());
}

TEST(QueryStringTest, BadEscapesAreErrors) {
  EXPECT_FALSE(ParseQueryString("a=%4").ok());
  EXPECT_FALSE(ParseQueryString("a=%G1").ok());
  EXPECT_FALSE(ParseQueryString("a=%").ok());
  EXPECT_FALSE(ParseQueryString("=1").ok());
}

}  // namespace
}  // namespace rnic
