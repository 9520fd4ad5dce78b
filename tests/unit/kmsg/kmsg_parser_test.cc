#include "collectors/kmsg/kmsg_parser.h"

#include <gtest/gtest.h>

#include "collectors/host/sysfs_parse.h"

namespace rnic::kmsg {
namespace {

TEST(KmsgRecordTest, SplitsHeaderMessageAndDictionary) {
  const auto r = ParseKmsgRecord(
      "4,1002,5000100,-;mlx5_core 0000:08:00.0: hello\n SUBSYSTEM=pci\n "
      "DEVICE=+pci:0000:08:00.0\n");
  EXPECT_EQ(r.priority, 4);
  EXPECT_TRUE(r.has_seq);
  EXPECT_EQ(r.seq, 1002u);
  EXPECT_EQ(r.message, "mlx5_core 0000:08:00.0: hello");
  EXPECT_EQ(r.device, "+pci:0000:08:00.0");
}

TEST(KmsgRecordTest, PlainLineIsTheWholeMessage) {
  const auto r = ParseKmsgRecord("mlx5_core 0000:08:00.0: a; b\n");
  EXPECT_FALSE(r.has_seq);
  EXPECT_EQ(r.priority, -1);
  EXPECT_EQ(r.message, "mlx5_core 0000:08:00.0: a; b");
  EXPECT_EQ(r.device, "");
}

TEST(CqErrorTest, ParsesMlx5Line) {
  auto e = ParseCqError(
      "mlx5_core 0000:08:00.0: cq_err_event_notifier:517:(pid 0): CQ error on "
      "CQN 0x1a, syndrome 0x1");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pci, "0000:08:00.0");
  EXPECT_EQ(e->cqn, 0x1au);
  EXPECT_EQ(e->syndrome, 0x1u);
  EXPECT_EQ(SyndromeHex(e->syndrome), "0x1");
  EXPECT_STREQ(SyndromeReason(e->syndrome), "overrun");
}

TEST(CqErrorTest, AccessViolationAndUppercaseBdf) {
  auto e = ParseCqError(
      "mlx5_core 0000:AF:00.1: CQ error on CQN 0xabc, syndrome 0x2");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pci, "0000:af:00.1");
  EXPECT_EQ(e->cqn, 0xabcu);
  EXPECT_STREQ(SyndromeReason(e->syndrome), "access_violation");
  EXPECT_STREQ(SyndromeReason(0x13), "unknown");
  EXPECT_EQ(SyndromeHex(0x13), "0x13");
}

TEST(CqErrorTest, FallsBackToDictionaryDevice) {
  auto e =
      ParseCqError("CQ error on CQN 0x7, syndrome 0x1", "+pci:0000:00:03.0");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pci, "0000:00:03.0");
  auto none = ParseCqError("CQ error on CQN 0x7, syndrome 0x1");
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->pci, "");
}

TEST(CqErrorTest, RejectsOtherAndMalformedLines) {
  EXPECT_FALSE(
      ParseCqError("mlx5_core 0000:08:00.0: Async event for bogus "
                   "CQ 0x1a"));
  EXPECT_FALSE(ParseCqError("CQ error on CQN 26, syndrome 0x1"));
  EXPECT_FALSE(ParseCqError("CQ error on CQN 0x1a, syndrome"));
  EXPECT_FALSE(ParseCqError("CQ error on CQN 0x, syndrome 0x1"));
}

TEST(PciAddressTest, FindsOnlyWellFormedAddresses) {
  EXPECT_TRUE(sysfs::IsPciAddress("0000:08:00.0"));
  EXPECT_FALSE(sysfs::IsPciAddress("0000:08:00.8"));
  EXPECT_FALSE(sysfs::IsPciAddress("000:08:00.0x"));
  EXPECT_EQ(FindPciAddress("x 0000:00:1f.3: y"), "0000:00:1f.3");
  EXPECT_EQ(FindPciAddress("10000:00:1f.3"), "");  // not at a boundary
  EXPECT_EQ(FindPciAddress("no address"), "");
}

}  // namespace
}  // namespace rnic::kmsg
