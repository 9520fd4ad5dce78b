#include "collectors/kmsg/pci_device_map.h"

#include <gtest/gtest.h>

#include <string>

namespace rnic::kmsg {
namespace {

const std::string kSys = std::string(RNIC_FIXTURES_DIR) + "/kmsg/sys";

TEST(PciDeviceMapTest, MapsDeviceLinksAndParentNetdevs) {
  const auto m = ReadPciToRdmaDevice(kSys);
  // Hardware device: its own `device` link.
  ASSERT_TRUE(m.count("0000:08:00.0"));
  EXPECT_EQ(m.at("0000:08:00.0"), "mlx5_0");
  // Dangling link: the address still comes from the link text.
  ASSERT_TRUE(m.count("0000:08:00.1"));
  EXPECT_EQ(m.at("0000:08:00.1"), "mlx5_1");
  // rxe: parent eth0 -> virtio0 under 0000:00:03.0 (as in the VM).
  ASSERT_TRUE(m.count("0000:00:03.0"));
  EXPECT_EQ(m.at("0000:00:03.0"), "rxe0");
  // rxe1 sits on dummy0, which has no PCI function.
  EXPECT_EQ(m.size(), 3u);
}

TEST(PciDeviceMapTest, MissingTreeGivesEmptyMap) {
  EXPECT_TRUE(ReadPciToRdmaDevice(kSys + "/nonexistent").empty());
}

TEST(PciDeviceMapTest, PciOfLinkTakesTheLastFunction) {
  EXPECT_EQ(PciOfLink(kSys + "/class/net/eth0/device"), "0000:00:03.0");
  EXPECT_EQ(PciOfLink(kSys + "/class/infiniband/rxe0/device"), "");
}

}  // namespace
}  // namespace rnic::kmsg
