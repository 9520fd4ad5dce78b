#include "collectors/common/yaml_scalar.h"

#include <gtest/gtest.h>

namespace rnic::yaml {
namespace {

template <typename R>
std::string ErrorOf(const R& r) {
  return r.ok() ? "ok" : r.error().message;
}

TEST(YamlScalarTest, IntegersAreDecimalAndInRange) {
  EXPECT_EQ(*Int(YAML::Load("42"), "a.b", 0, 100), 42);
  EXPECT_EQ(*Int(YAML::Load("-1"), "a.b", -1, 1), -1);
  EXPECT_EQ(ErrorOf(Int(YAML::Load("101"), "a.b", 0, 100)),
            "a.b: must be between 0 and 100");
  EXPECT_EQ(ErrorOf(Int(YAML::Load("4x"), "a.b", 0, 100)),
            "a.b: must be an integer, not '4x'");
  EXPECT_EQ(ErrorOf(Int(YAML::Load("0x10"), "a.b", 0, 100)),
            "a.b: must be an integer, not '0x10'");
  EXPECT_EQ(ErrorOf(Int(YAML::Load("[1]"), "a.b", 0, 100)),
            "a.b: must be an integer");
  // Without a path the reason stands alone (the caller names the value).
  EXPECT_EQ(ErrorOf(Int(YAML::Load("''"), "", 0, 1)),
            "must be an integer, not ''");
}

TEST(YamlScalarTest, NumbersAreFinite) {
  EXPECT_DOUBLE_EQ(*Number(YAML::Load("2.5"), "p", 0, 100), 2.5);
  for (const char* bad : {".nan", "nan", "inf", "1e400", "x"}) {
    EXPECT_NE(ErrorOf(Number(YAML::Load(bad), "p", 0, 100))
                  .find("p: must be a number"),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(ErrorOf(Number(YAML::Load("100.5"), "p", 0, 100)),
            "p: must be between 0 and 100");
}

TEST(YamlScalarTest, BooleansAreTrueOrFalse) {
  EXPECT_TRUE(*Bool(YAML::Load("true"), "x"));
  EXPECT_FALSE(*Bool(YAML::Load("False"), "x"));
  EXPECT_EQ(ErrorOf(Bool(YAML::Load("yes"), "x")),
            "x: must be true or false, not 'yes'");
  EXPECT_EQ(ErrorOf(Bool(YAML::Load("{a: 1}"), "x")),
            "x: must be true or false");
}

TEST(YamlScalarTest, DurationsUseThePrometheusSyntax) {
  EXPECT_EQ(*Duration(YAML::Load("1m30s"), "d", std::chrono::milliseconds(0),
                      std::chrono::hours(1)),
            std::chrono::seconds(90));
  EXPECT_EQ(
      ErrorOf(Duration(YAML::Load("2h"), "d", std::chrono::milliseconds(0),
                       std::chrono::hours(1))),
      "d: must be between 0ms and 3600000ms");
  EXPECT_NE(
      ErrorOf(Duration(YAML::Load("banana"), "d", std::chrono::milliseconds(0),
                       std::chrono::hours(1)))
          .rfind("d: ", 0),
      std::string::npos);
}

TEST(YamlScalarTest, ListsNameEachItem) {
  auto v = List(YAML::Load("[a, b]"), "s.l", Text);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ErrorOf(List(YAML::Load("[a, [b]]"), "s.l", Text)),
            "s.l[1]: must be a scalar");
  EXPECT_EQ(ErrorOf(List(YAML::Load("a"), "s.l", Text)), "s.l: must be a list");
}

}  // namespace
}  // namespace rnic::yaml
