#include "collectors/metrics/label_cache.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(LabelCacheTest, SameValuesGiveTheSameSetAcrossScrapes) {
  LabelCache c;
  const LabelSetPtr first = c.Get({{"device", "rxe0"}, {"resource", "qp"}});
  EXPECT_EQ(first->text(), "device=\"rxe0\",resource=\"qp\"");
  c.Sweep();
  // Built once: the next scrape gets the very same object.
  EXPECT_EQ(c.Get({{"device", "rxe0"}, {"resource", "qp"}}).get(), first.get());
  EXPECT_EQ(c.size(), 1u);
}

TEST(LabelCacheTest, NamesAndBoundariesKeepSetsApart) {
  LabelCache c;
  const auto a = c.Get({{"comm", "ab"}, {"pod_uid", "c"}});
  const auto b = c.Get({{"comm", "a"}, {"pod_uid", "bc"}});
  const auto d = c.Get({{"comm", "ab"}, {"container_id", "c"}});
  const auto e = c.Get({{"comm", "ab"}});
  EXPECT_NE(a.get(), b.get());
  EXPECT_NE(a.get(), d.get());
  EXPECT_NE(a.get(), e.get());
  EXPECT_EQ(b->text(), "comm=\"a\",pod_uid=\"bc\"");
  EXPECT_EQ(e->text(), "comm=\"ab\"");
  EXPECT_EQ(c.size(), 4u);
}

TEST(LabelCacheTest, ASetNotAskedForInAScrapeIsForgotten) {
  LabelCache c;
  const auto gone = c.Get({{"comm", "ib_write_bw"}});
  (void)c.Get({{"comm", "rnic_exporter"}});
  c.Sweep();
  (void)c.Get({{"comm", "rnic_exporter"}});
  c.Sweep();
  // The process that went away leaves nothing behind...
  EXPECT_EQ(c.size(), 1u);
  // ...and coming back builds a new set.
  EXPECT_NE(c.Get({{"comm", "ib_write_bw"}}).get(), gone.get());
  EXPECT_EQ(c.size(), 2u);
}

}  // namespace
}  // namespace rnic
