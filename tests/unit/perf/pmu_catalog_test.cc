#include "collectors/perf/pmu_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rnic {
namespace {

const std::string kSysfs = RNIC_FIXTURES_DIR "/perf";

TEST(PmuFormatTest, ParsesRangesAndWords) {
  auto f = ParsePmuFormat("config:0-7");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->config_word, 0);
  ASSERT_EQ(f->bits.size(), 1u);
  EXPECT_EQ(f->bits[0], std::make_pair(0, 7));
  f = ParsePmuFormat("config1:0-3,8,60-63\n");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->config_word, 1);
  EXPECT_EQ(f->bits.size(), 3u);
  EXPECT_FALSE(ParsePmuFormat("config3:0-7").ok());
  EXPECT_FALSE(ParsePmuFormat("config:7-0").ok());
  EXPECT_FALSE(ParsePmuFormat("config:0-64").ok());
  EXPECT_FALSE(ParsePmuFormat("config").ok());
  EXPECT_FALSE(ParsePmuFormat("config:").ok());
}

TEST(CpuListTest, Parses) {
  EXPECT_EQ(*ParseCpuList("0-2,5\n"), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_EQ(*ParseCpuList(""), std::vector<int>{});
  EXPECT_FALSE(ParseCpuList("a").ok());
  // Found by tests/fuzz/fuzz_range_list: expanded to 2^31 ints (OOM, and
  // signed overflow of the loop counter at INT_MAX).
  EXPECT_FALSE(ParseCpuList("14656-864545663").ok());
  EXPECT_FALSE(ParseCpuList("0-2147483647").ok());
  EXPECT_FALSE(ParseCpuList("0-40000,0-40000").ok());  // count, not ids
  EXPECT_EQ(ParseCpuList("0-65535")->size(), 65536u);
  EXPECT_FALSE(ParseCpuList("65536").ok());
}

TEST(PmuCatalogTest, LoadsUncoreIioFromSysfs) {
  auto pmus = ListPmus(kSysfs);
  ASSERT_TRUE(pmus.ok());
  EXPECT_NE(std::find(pmus->begin(), pmus->end(), "uncore_iio_0"), pmus->end());
  auto pmu = LoadPmu(kSysfs, "uncore_iio_0");
  ASSERT_TRUE(pmu.ok()) << pmu.error().message;
  EXPECT_EQ(pmu->type, 38u);
  EXPECT_EQ(pmu->cpus, (std::vector<int>{0, 28}));
  EXPECT_EQ(pmu->formats.size(), 7u);
  EXPECT_FALSE(LoadPmu(kSysfs, "nonexistent").ok());
}

TEST(PmuCatalogTest, EncodesTermsThroughFormats) {
  auto pmu = LoadPmu(kSysfs, "uncore_iio_0");
  ASSERT_TRUE(pmu.ok());
  // PCIe read of port 0 on SKX: event 0x83, umask 0x04, ch_mask 0x01, fc_mask
  // 0x07.
  auto e = EncodeEvent(*pmu, "event=0x83,umask=0x04,ch_mask=0x01,fc_mask=0x07");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->config[0],
            0x83ULL | (0x04ULL << 8) | (0x01ULL << 36) | (0x07ULL << 44));
  EXPECT_EQ(e->config[1], 0u);
  // A flag term without a value sets 1.
  e = EncodeEvent(*pmu, "event=0x1,edge");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->config[0], 0x1ULL | (1ULL << 18));
  // Errors name the problem.
  auto bad = EncodeEvent(*pmu, "event=0x100");  // 9 bits into 8
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("event"), std::string::npos);
  bad = EncodeEvent(*pmu, "colour=3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("colour"), std::string::npos);
  EXPECT_FALSE(EncodeEvent(*pmu, "event=zz").ok());
  EXPECT_FALSE(EncodeEvent(*pmu, "").ok());
}

// The kernel's own format files of this machine, not a fixture: a field that
// does not start at bit 0 (uprobe's ref_ctr_offset, config:32-63) and one that
// spans the whole word (msr's event, config:0-63) take non-zero values.
TEST(PmuCatalogTest, EncodesThroughThisMachinesRealFormats) {
  const std::string sys = "/sys";
  int checked = 0;
  if (auto uprobe = LoadPmu(sys, "uprobe"); uprobe.ok()) {
    auto e = EncodeEvent(*uprobe, "retprobe=1,ref_ctr_offset=0x1234");
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e->config[0], (0x1234ULL << 32) | 1ULL);
    e = EncodeEvent(*uprobe, "ref_ctr_offset=0xffffffff");
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e->config[0], 0xffffffffULL << 32);
    EXPECT_FALSE(EncodeEvent(*uprobe, "ref_ctr_offset=0x100000000").ok());
    EXPECT_FALSE(EncodeEvent(*uprobe, "retprobe=2").ok());
    ++checked;
  }
  if (auto msr = LoadPmu(sys, "msr"); msr.ok()) {
    auto e = EncodeEvent(*msr, "event=0x3f");
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e->config[0], 0x3fULL);
    e = EncodeEvent(*msr, "event=0xffffffffffffffff");
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e->config[0], ~0ULL);
    // A named event resolves through the PMU's events/ directory.
    if (auto tsc = EncodeEvent(*msr, "tsc"); tsc.ok()) {
      EXPECT_EQ(tsc->config[0], 0u);
    }
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "neither uprobe nor msr PMU on this host";
}

TEST(PmuCatalogTest, NamedEventsCarryScaleAndUnit) {
  auto pmu = LoadPmu(kSysfs, "uncore_iio_free_running_0");
  ASSERT_TRUE(pmu.ok());
  ASSERT_EQ(pmu->events.size(), 2u);
  auto e = EncodeEvent(*pmu, "bw_in_port0");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->config[0], 0xffULL | (0x20ULL << 8));
  EXPECT_DOUBLE_EQ(e->scale, 3.814697265625e-6);
  EXPECT_EQ(e->unit, "MiB");
  e = EncodeEvent(*pmu, "ioclk");
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->scale, 1.0);
}

}  // namespace
}  // namespace rnic
