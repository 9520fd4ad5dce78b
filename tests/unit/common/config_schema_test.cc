#include "collectors/common/config_schema.h"

#include <gtest/gtest.h>

#include <optional>

namespace rnic::config {
namespace {

struct Inner {
  std::string name;
  bool flag = false;
};

enum class Mode { kFast, kSlow };

struct Outer {
  bool enabled = true;
  int count = 3;
  std::chrono::milliseconds every{1500};
  std::vector<std::uint64_t> sizes = {4096};
  Mode mode = Mode::kSlow;
  Inner inner;
  std::optional<Inner> maybe;
  std::vector<Inner> items;
  int derived = 0;
};

MapSchema<Inner> InnerSchema() {
  MapSchema<Inner> s;
  s.Key("name", &Inner::name, NonEmptyString(), "a name").Required("a name");
  s.Key("flag", &Inner::flag, Bool(), "a flag");
  return s;
}

const Section<Outer>& Schema() {
  static const Section<Outer> section = [] {
    MapSchema<Outer> s;
    s.Key("enabled", &Outer::enabled, Bool(), "on or off");
    s.Key("count", &Outer::count, Int<int>(1, 10), "how many");
    s.Key("every", &Outer::every,
          Duration(std::chrono::milliseconds(10), std::chrono::hours(1)),
          "how often");
    s.Key("sizes", &Outer::sizes, List(Size(1, 1 << 20), true), "sizes");
    s.Key("mode", &Outer::mode,
          Enum<Mode>({{"fast", Mode::kFast}, {"slow", Mode::kSlow}}),
          "the mode");
    s.Key("inner", &Outer::inner, Map(InnerSchema()), "nested");
    s.Key("maybe", &Outer::maybe, Optional(Map(InnerSchema())), "optional");
    s.Key("items", &Outer::items, List(Map(InnerSchema())), "list of maps");
    s.Key<int>(
        "twice", [](Outer& o, int&& v) { o.derived = 2 * v; }, Int<int>(0, 100),
        "stored doubled");
    s.Then([](Outer& o, const std::string& where) -> Status {
      if (o.mode == Mode::kFast && o.count > 5) {
        return yaml::KeyError(where + ".count", "must be at most 5 when fast");
      }
      return Status::Ok();
    });
    return Section<Outer>{"outer", "A test section.", Map(std::move(s))};
  }();
  return section;
}

std::string ErrorOf(const std::string& yaml) {
  auto r = Schema().Parse(YAML::Load(yaml));
  return r.ok() ? "" : r.error().message;
}

TEST(ConfigSchemaTest, AbsentOrEmptySectionGivesTheStructDefaults) {
  for (const auto& node : {YAML::Node(), YAML::Load("~"), YAML::Load("{}")}) {
    auto r = Schema().Parse(node);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->enabled);
    EXPECT_EQ(r->count, 3);
    EXPECT_EQ(r->every, std::chrono::milliseconds(1500));
    EXPECT_EQ(r->sizes, std::vector<std::uint64_t>{4096});
    EXPECT_FALSE(r->maybe.has_value());
  }
}

TEST(ConfigSchemaTest, EveryKindOfKeyIsRead) {
  auto r = Schema().Parse(YAML::Load(R"(
enabled: false
count: 4
every: 1m30s
sizes: [64, 2KiB]
mode: fast
inner: {name: a, flag: true}
maybe: {name: b}
items: [{name: c}, {name: d, flag: true}]
twice: 21
)"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->enabled);
  EXPECT_EQ(r->count, 4);
  EXPECT_EQ(r->every, std::chrono::seconds(90));
  EXPECT_EQ(r->sizes, (std::vector<std::uint64_t>{64, 2048}));
  EXPECT_EQ(r->mode, Mode::kFast);
  EXPECT_EQ(r->inner.name, "a");
  EXPECT_TRUE(r->inner.flag);
  ASSERT_TRUE(r->maybe.has_value());
  EXPECT_EQ(r->maybe->name, "b");
  ASSERT_EQ(r->items.size(), 2u);
  EXPECT_TRUE(r->items[1].flag);
  EXPECT_EQ(r->derived, 42);
}

TEST(ConfigSchemaTest, ErrorsNameTheKeyPath) {
  EXPECT_EQ(ErrorOf("cuont: 1"), "outer.cuont: unknown key");
  EXPECT_EQ(ErrorOf("count: 1\ncount: 2"), "outer.count: given twice");
  EXPECT_EQ(ErrorOf("[a]: 1"), "outer: a key must be a plain name, not [a]");
  EXPECT_EQ(ErrorOf("[1, 2]"), "outer: must be a map");
  EXPECT_EQ(ErrorOf("count: 11"), "outer.count: must be between 1 and 10");
  EXPECT_EQ(ErrorOf("sizes: [64, 0]"),
            "outer.sizes[1]: must be between 1 and 1048576");
  EXPECT_EQ(ErrorOf("sizes: [64, 4 parsecs]"),
            "outer.sizes[1]: unknown size unit ' parsecs'");
  EXPECT_EQ(ErrorOf("sizes: [17179869184G]"),
            "outer.sizes[0]: size out of range: 17179869184G");
  EXPECT_EQ(ErrorOf("sizes: []"), "outer.sizes: must not be empty");
  EXPECT_EQ(ErrorOf("sizes:"), "outer.sizes: must not be empty");
  EXPECT_EQ(ErrorOf("mode: medium"),
            "outer.mode: must be fast or slow, not 'medium'");
  EXPECT_EQ(ErrorOf("inner: {flag: true}"), "outer.inner: needs a name");
  EXPECT_EQ(ErrorOf("inner: {name: ''}"),
            "outer.inner.name: must not be empty");
  EXPECT_EQ(ErrorOf("items: [{name: a}, {name: b, x: 1}]"),
            "outer.items[1].x: unknown key");
  EXPECT_EQ(ErrorOf("items: [{name: a}, 3]"), "outer.items[1]: must be a map");
  EXPECT_EQ(ErrorOf("mode: fast\ncount: 6"),
            "outer.count: must be at most 5 when fast");
  EXPECT_EQ(ErrorOf("every: 5ms"),
            "outer.every: must be between 10ms and 3600000ms");
}

// Keys are read in their declared order: the first error does not depend
// on the file's order.
TEST(ConfigSchemaTest, FirstErrorInDeclaredOrder) {
  EXPECT_EQ(ErrorOf("mode: x\ncount: 0"),
            "outer.count: must be between 1 and 10");
  EXPECT_EQ(ErrorOf("count: 0\nmode: x"),
            "outer.count: must be between 1 and 10");
}

TEST(ConfigSchemaTest, FormatsForTheReference) {
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(std::chrono::seconds(90)), "1m30s");
  EXPECT_EQ(FormatDuration(std::chrono::hours(24)), "1d");
  EXPECT_EQ(FormatSize(64), "64");
  EXPECT_EQ(FormatSize(4096), "4KiB");
  EXPECT_EQ(FormatSize(1u << 20), "1MiB");
  EXPECT_EQ(FormatSize(1536), "1536");
  EXPECT_EQ(*ParseSize("4k"), 4096u);
  EXPECT_EQ(*ParseSize(" 1MiB "), 1u << 20);
  EXPECT_EQ(*ParseSize("2g"), 2ull << 30);
  EXPECT_FALSE(ParseSize("-1").ok());
}

TEST(ConfigSchemaTest, MarkdownHasOneRowPerKeyWithTypeDefaultAndRange) {
  const std::string md = Markdown(Schema().Doc());
  EXPECT_EQ(
      md.rfind("### `outer:`\n\nA test section.\n\n| key | type | default "
               "| range | meaning |\n|---|---|---|---|---|\n",
               0),
      0u)
      << md;
  for (const char* row : {
           "| `enabled` | bool | `true` |  | on or off |\n",
           "| `count` | int | `3` | 1..10 | how many |\n",
           "| `every` | duration | `1s500ms` | 10ms..1h | how often |\n",
           "| `sizes` | list of sizes | `[4KiB]` | 1..1MiB | sizes |\n",
           "| `mode` | enum | `slow` | `fast`, `slow` | the mode |\n",
           "| `inner` | map |  |  | nested |\n",
           "| `inner.name` | string | required |  | a name |\n",
           "| `items[].flag` | bool | `false` |  | a flag |\n",
           "| `twice` | int |  | 0..100 | stored doubled |\n",
       }) {
    EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md;
  }
}

}  // namespace
}  // namespace rnic::config
