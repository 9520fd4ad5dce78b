#include "collectors/host/pci_tree.h"

#include <gtest/gtest.h>

#include "collectors/host/gpu_topology.h"

namespace rnic::gpu {
namespace {

PciFunction Fn(std::vector<std::string> ancestors, std::optional<int> numa) {
  PciFunction f;
  f.ancestors = std::move(ancestors);
  f.numa = numa;
  return f;
}

TEST(PciTreeTest, AncestorsFromTheLinkTarget) {
  const auto a = ParseAncestors(
      "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:1a:00.0",
      "0000:1a:00.0");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(*a, (std::vector<std::string>{"pci0000:15", "0000:15:01.0",
                                          "0000:16:00.0"}));
  // A VMD domain nests a second host bridge below an endpoint: the chain
  // starts at the first.
  const auto vmd = ParseAncestors(
      "../../../devices/pci0000:00/0000:00:0e.0/pci10000:00/"
      "10000:00:02.0/10000:01:00.0",
      "10000:01:00.0");
  ASSERT_TRUE(vmd.has_value());
  EXPECT_EQ(vmd->front(), "pci0000:00");
  EXPECT_EQ(vmd->size(), 4u);
  // Not ending in the function, or no host bridge: not a PCI place.
  EXPECT_FALSE(ParseAncestors("../../../devices/pci0000:15/0000:15:01.0",
                              "0000:1a:00.0"));
  EXPECT_FALSE(
      ParseAncestors("../../devices/platform/0000:1a:00.0", "0000:1a:00.0"));
}

TEST(PciTreeTest, RelationsAsNvidiaSmiNamesThem) {
  const std::vector<std::string> sw = {"pci0000:15", "0000:15:01.0",
                                       "0000:16:00.0"};
  auto below = [&](std::vector<std::string> extra) {
    auto v = sw;
    v.insert(v.end(), extra.begin(), extra.end());
    return v;
  };
  // Two downstream ports of one switch.
  EXPECT_EQ(
      Relate(Fn(below({"0000:17:00.0"}), 0), Fn(below({"0000:17:01.0"}), 0)),
      Relation::kPix);
  // One side behind a second switch below the first.
  EXPECT_EQ(
      Relate(Fn(below({"0000:17:00.0"}), 0),
             Fn(below({"0000:17:01.0", "0000:18:00.0", "0000:19:00.0"}), 0)),
      Relation::kPxb);
  // Two root ports of one host bridge.
  EXPECT_EQ(Relate(Fn({"pci0000:15", "0000:15:01.0"}, 0),
                   Fn({"pci0000:15", "0000:15:02.0"}, 0)),
            Relation::kPhb);
  // Two host bridges: the NUMA node decides; unknown on both is one node.
  EXPECT_EQ(Relate(Fn({"pci0000:15", "0000:15:01.0"}, 0),
                   Fn({"pci0000:35", "0000:35:01.0"}, 0)),
            Relation::kNode);
  EXPECT_EQ(Relate(Fn({"pci0000:15", "0000:15:01.0"}, 0),
                   Fn({"pci0000:95", "0000:95:01.0"}, 1)),
            Relation::kSys);
  EXPECT_EQ(Relate(Fn({"pci0000:15"}, std::nullopt),
                   Fn({"pci0000:95"}, std::nullopt)),
            Relation::kNode);
  EXPECT_EQ(Relate(Fn({"pci0000:15"}, 0), Fn({"pci0000:95"}, std::nullopt)),
            Relation::kSys);
  EXPECT_EQ(RelationName(Relation::kPxb), "PXB");
  EXPECT_EQ(RelationName(Relation::kSys), "SYS");
}

TEST(PciTreeTest, NvmlBusIdAsDcgmExporterPrintsIt) {
  EXPECT_EQ(NvmlBusId("0000:3b:00.0"), "00000000:3B:00.0");
  EXPECT_EQ(NvmlBusId("0001:c1:1f.7"), "00000001:C1:1F.7");
  EXPECT_EQ(NvmlBusId("10000:01:00.0"), "00010000:01:00.0");
  EXPECT_EQ(NvmlBusId("not-a-bdf"), "not-a-bdf");
}

TEST(PciTreeTest, AddressesOrderNumerically) {
  EXPECT_TRUE(PciAddressLess("0000:1a:00.0", "0000:9b:00.0"));
  EXPECT_TRUE(PciAddressLess("0000:ff:00.0", "10000:00:00.0"));
  EXPECT_TRUE(PciAddressLess("0000:3b:00.1", "0000:3b:01.0"));
  EXPECT_FALSE(PciAddressLess("0000:3b:00.0", "0000:3b:00.0"));
}

TEST(PciTreeTest, GpusByVendorAndClass) {
  PciFunction f;
  f.vendor = 0x10de;
  f.class_code = 0x030200;  // 3D controller (H100)
  EXPECT_EQ(GpuVendorOf(f), GpuVendor::kNvidia);
  f.class_code = 0x068000;  // NVSwitch: a bridge
  EXPECT_EQ(GpuVendorOf(f), GpuVendor::kNone);
  f.vendor = 0x1002;
  f.class_code = 0x120000;  // MI300X
  EXPECT_EQ(GpuVendorOf(f), GpuVendor::kAmd);
  f.vendor = 0x8086;
  EXPECT_EQ(GpuVendorOf(f), GpuVendor::kNone);  // an Intel accelerator
  f.class_code = 0x038000;                      // Data Center GPU Max
  EXPECT_EQ(GpuVendorOf(f), GpuVendor::kIntel);
  f.vendor = 0x1a03;  // ASPEED BMC VGA
  f.class_code = 0x030000;
  EXPECT_EQ(GpuVendorOf(f), GpuVendor::kNone);
}

TEST(PciTreeTest, NvmlNumbersOnlyNvidiaBoundGpus) {
  auto gpu = [](std::string addr, std::uint32_t vendor, std::string driver) {
    PciFunction f;
    f.address = std::move(addr);
    f.vendor = vendor;
    f.class_code = 0x030200;
    f.driver = std::move(driver);
    return f;
  };
  const auto gpus = FindGpus(
      {gpu("0000:18:00.0", 0x10de, "nvidia"),
       gpu("0000:2a:00.0", 0x10de, "vfio-pci"), gpu("0000:3a:00.0", 0x1002, ""),
       gpu("0000:5d:00.0", 0x10de, ""), gpu("0000:9a:00.0", 0x10de, "nvidia")});
  ASSERT_EQ(gpus.size(), 5u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_FALSE(gpus[1].index.has_value());  // passed to a VM
  EXPECT_EQ(gpus[2].index, 0);              // AMD counts apart
  EXPECT_FALSE(gpus[3].index.has_value());  // no driver bound
  EXPECT_EQ(gpus[4].index, 1);
  EXPECT_EQ(gpus[4].bus_id, "00000000:9A:00.0");
}

TEST(PciTreeTest, RailOrder) {
  auto r = ParseRailOrder("mlx5_0,mlx5_3,mlx5_4");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::string>{"mlx5_0", "mlx5_3", "mlx5_4"}));
  EXPECT_TRUE(ParseRailOrder("")->empty());
  EXPECT_FALSE(ParseRailOrder("mlx5_0,,mlx5_1").ok());
  EXPECT_FALSE(ParseRailOrder("mlx5_0,").ok());
  EXPECT_FALSE(ParseRailOrder("mlx5_0,mlx5_0").ok());
}

TEST(PciTreeTest, RailsByPhysicalFunctionAddress) {
  const std::vector<RdmaFunction> nics = {
      {"mlx5_1", "0000:9b:00.0", false},
      {"mlx5_0", "0000:1b:00.0", false},
      {"mlx5_2", "0000:1b:00.2", true},  // a VF: no rail of its own
  };
  auto rails = AssignRails(nics, {});
  EXPECT_EQ(rails.at("mlx5_0"), "0");
  EXPECT_EQ(rails.at("mlx5_1"), "1");
  EXPECT_FALSE(rails.contains("mlx5_2"));
  rails = AssignRails(nics, {"mlx5_1", "mlx5_2"});
  EXPECT_EQ(rails.at("mlx5_1"), "0");
  EXPECT_EQ(rails.at("mlx5_2"), "1");
  EXPECT_FALSE(rails.contains("mlx5_0"));
}

}  // namespace
}  // namespace rnic::gpu
