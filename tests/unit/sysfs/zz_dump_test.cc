#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <iostream>
#include "collectors/sysfs/sysfs_collector.h"
#include "sysfs_test_util.h"
namespace rnic::sysfs {
TEST(DISABLED_Dump, Fixture) {
  SysfsCollector c(testing::FixtureSysfs(), {});
  MetricSet out;
  ASSERT_TRUE(c.Collect(ScrapeContext{}, out).ok());
  auto fams = std::move(out).Take();
  std::cout << prometheus::TextSerializer().Serialize(fams);
}
}
