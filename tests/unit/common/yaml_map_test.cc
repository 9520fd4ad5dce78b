#include "collectors/common/yaml_map.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

std::string KeysError(const std::string& yaml) {
  auto k = MapKeys(YAML::Load(yaml), "sect");
  return k.ok() ? "" : k.error().message;
}

TEST(YamlMapTest, KeysInFileOrder) {
  auto k = MapKeys(YAML::Load("b: 1\na: 2\n"), "sect");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(*k, (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(MapKeys(YAML::Node(), "sect")->empty());
  EXPECT_TRUE(MapKeys(YAML::Load("~"), "sect")->empty());
}

TEST(YamlMapTest, ListOrMapKeyIsAnErrorNotAThrow) {
  EXPECT_EQ(KeysError("[a, b]: 1"),
            "sect: a key must be a plain name, not [a, b]");
  EXPECT_EQ(KeysError("{a: 1}: 2"),
            "sect: a key must be a plain name, not {a: 1}");
  EXPECT_EQ(KeysError("ok: 1\n? [x]\n: 2\n"),
            "sect: a key must be a plain name, not [x]");
}

TEST(YamlMapTest, NotAMapAndDuplicates) {
  EXPECT_EQ(KeysError("[1, 2]"), "sect: must be a map");
  EXPECT_EQ(KeysError("just text"), "sect: must be a map");
  EXPECT_EQ(KeysError("a: 1\na: 2\n"), "sect.a: given twice");
}

TEST(YamlMapTest, UnknownKeyNamesSectionAndKey) {
  EXPECT_TRUE(CheckMapKeys(YAML::Load("a: 1"), "sect", {"a", "b"}).ok());
  auto st = CheckMapKeys(YAML::Load("a: 1\ncpus: 2"), "sect", {"a", "b"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "sect.cpus: unknown key");
  st = CheckMapKeys(YAML::Load("[a]: 1"), "sect", {"a"});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("plain name"), std::string::npos);
}

TEST(YamlMapTest, LongKeysAreShortened) {
  std::string big = "[";
  for (int i = 0; i < 100; ++i) big += "x" + std::to_string(i) + ", ";
  big += "y]: 1";
  const std::string e = KeysError(big);
  EXPECT_LT(e.size(), 100u) << e;
  EXPECT_NE(e.find("..."), std::string::npos) << e;
}

}  // namespace
}  // namespace rnic
