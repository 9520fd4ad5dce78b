#include "collectors/host/sysfs_parse.h"

#include <gtest/gtest.h>

namespace rnic::sysfs {
namespace {

TEST(ParseCounterValueTest, DecimalWithNewline) {
  const ParsedValue v = ParseCounterValue("146646\n");
  EXPECT_EQ(v.status, ValueStatus::kOk);
  EXPECT_EQ(v.value, 146646u);
  EXPECT_EQ(ParseCounterValue("0\n").value, 0u);
  EXPECT_EQ(ParseCounterValue("18446744073709551615\n").value,
            18446744073709551615u);
}

TEST(ParseCounterValueTest, NotAvailable) {
  EXPECT_EQ(ParseCounterValue("N/A (no PMA)\n").status,
            ValueStatus::kNotAvailable);
  EXPECT_EQ(ParseCounterValue("N/A").status, ValueStatus::kNotAvailable);
}

TEST(ParseCounterValueTest, MalformedIsNeverZero) {
  for (const char* s : {"", "\n", "-1\n", "12abc\n", "0x10\n", "1.5\n",
                        "18446744073709551616\n", "abc"}) {
    EXPECT_EQ(ParseCounterValue(s).status, ValueStatus::kMalformed) << s;
  }
}

TEST(ParseHexOrDecimalTest, Lid) {
  EXPECT_EQ(ParseHexOrDecimal("0x1a\n"), 26u);
  EXPECT_EQ(ParseHexOrDecimal("0x0\n"), 0u);
  EXPECT_EQ(ParseHexOrDecimal("12\n"), 12u);
  EXPECT_FALSE(ParseHexOrDecimal("0x\n"));
  EXPECT_FALSE(ParseHexOrDecimal("zz\n"));
  EXPECT_FALSE(ParseHexOrDecimal(""));
}

TEST(ParseNumberedNameTest, StatesAndNodeTypes) {
  auto s = ParseNumberedName("4: ACTIVE\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->number, 4u);
  EXPECT_EQ(s->name, "ACTIVE");
  s = ParseNumberedName("5: LinkUp\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->number, 5u);
  s = ParseNumberedName("7: unspecified\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "unspecified");
  s = ParseNumberedName("7: Phy Test\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "Phy Test");
  EXPECT_FALSE(ParseNumberedName("ACTIVE\n"));
  EXPECT_FALSE(ParseNumberedName(": ACTIVE\n"));
  EXPECT_FALSE(ParseNumberedName("x: ACTIVE\n"));
}

TEST(ParseRateTest, KernelFormats) {
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("100 Gb/sec (4X EDR)\n"), 12.5e9);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("2.5 Gb/sec (1X SDR)\n"),
                   312500000.0);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("25 Gb/sec (1X EDR)\n"), 3.125e9);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("14 Gb/sec\n"), 1.75e9);
  // Old kernels printed no speed name for SDR.
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("10 Gb/sec (4X)\n"), 1.25e9);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("100 Gb/sec (2X HDR)\n"), 12.5e9);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("53.125 Gb/sec (1X HDR)\n"),
                   53.125e9 / 8);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("800 Gb/sec (4X XDR)\n"), 1e11);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("0 Gb/sec (1X)\n"), 0.0);
  EXPECT_DOUBLE_EQ(*ParseRateBytesPerSecond("100 Mb/sec\n"), 12.5e6);
}

TEST(ParseRateTest, OddStrings) {
  for (const char* s :
       {"", "\n", "fast\n", "100\n", "Gb/sec 100\n", "-10 Gb/sec\n",
        "100 GB/sec\n", "1e3 Gb/sec\n", "nan Gb/sec\n", "10 furlongs/sec\n"}) {
    EXPECT_FALSE(ParseRateBytesPerSecond(s)) << s;
  }
}

TEST(IsPciAddressTest, Formats) {
  EXPECT_TRUE(IsPciAddress("0000:3b:00.0"));
  EXPECT_TRUE(IsPciAddress("10000:00:00.1") == false);
  EXPECT_FALSE(IsPciAddress("ice.roce.0"));
  EXPECT_FALSE(IsPciAddress("0000:3b:00:0"));
  EXPECT_FALSE(IsPciAddress("pci0000:00"));
}

}  // namespace
}  // namespace rnic::sysfs
