#include "collectors/health/pcie_parse.h"

#include <gtest/gtest.h>

namespace rnic::pcie {
namespace {

TEST(PcieParseTest, LinkSpeedEveryKernelSpelling) {
  EXPECT_EQ(ParseLinkSpeed("16.0 GT/s PCIe\n"), 16e9);
  EXPECT_EQ(ParseLinkSpeed("32.0 GT/s PCIe"), 32e9);
  EXPECT_EQ(ParseLinkSpeed("2.5 GT/s PCIe"), 2.5e9);
  EXPECT_EQ(ParseLinkSpeed("8 GT/s"), 8e9);        // before Linux 5.3
  EXPECT_EQ(ParseLinkSpeed("2.5 GT/s\n"), 2.5e9);  // before Linux 5.3
}

TEST(PcieParseTest, LinkSpeedUnknownAndGarbage) {
  EXPECT_FALSE(ParseLinkSpeed("Unknown"));
  EXPECT_FALSE(ParseLinkSpeed("Unknown speed\n"));
  EXPECT_FALSE(ParseLinkSpeed(""));
  EXPECT_FALSE(ParseLinkSpeed("8.0 Gb/s"));
  EXPECT_FALSE(ParseLinkSpeed("8.0 GT/sPCIe"));
  EXPECT_FALSE(ParseLinkSpeed("0 GT/s"));
  EXPECT_FALSE(ParseLinkSpeed("-8 GT/s"));
}

TEST(PcieParseTest, LinkWidth) {
  EXPECT_EQ(ParseLinkWidth("16\n"), 16);
  EXPECT_EQ(ParseLinkWidth("1"), 1);
  EXPECT_FALSE(ParseLinkWidth("0\n"));  // the kernel does not know
  EXPECT_FALSE(ParseLinkWidth("x16"));
  EXPECT_FALSE(ParseLinkWidth("16 lanes"));
  EXPECT_FALSE(ParseLinkWidth(""));
}

TEST(PcieParseTest, AerCountersWithoutTotal) {
  auto r = ParseAerCounters(
      "RxErr 12\nBadTLP 3\nBadDLLP 0\nRollover 0\nTimeout 0\n"
      "NonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 15\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 8u);
  EXPECT_EQ((*r)[0].error, "RxErr");
  EXPECT_EQ((*r)[0].count, 12u);
  EXPECT_EQ((*r)[1].error, "BadTLP");
  EXPECT_EQ((*r)[1].count, 3u);
  for (const auto& c : *r) EXPECT_NE(c.error.rfind("TOTAL_", 0), 0u);
}

TEST(PcieParseTest, AerCountersLargeAndEmpty) {
  auto r = ParseAerCounters("CmpltTO 18446744073709551615\nTOTAL_ERR_FATAL 1");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].count, 18446744073709551615ull);
  auto e = ParseAerCounters("");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->empty());
}

TEST(PcieParseTest, AerCountersMalformedNamesTheLine) {
  auto r = ParseAerCounters("RxErr 1\nBadTLP lots\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("BadTLP lots"), std::string::npos);
  EXPECT_FALSE(ParseAerCounters("RxErr\n").ok());
  EXPECT_FALSE(ParseAerCounters(" 5\n").ok());
}

}  // namespace
}  // namespace rnic::pcie
