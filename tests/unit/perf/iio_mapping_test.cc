#include "collectors/perf/iio_mapping.h"

#include <gtest/gtest.h>

#include "collectors/host/host_model.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic::perf {
namespace {

const std::string kIio = RNIC_FIXTURES_DIR "/perf-iio";

TEST(IioMapping, ListsEveryMappedStackAndDie) {
  const auto stacks = ListIioStacks(kIio);
  // 6 stacks x 2 dies, minus stack 5 on die 1 (no root bus).
  ASSERT_EQ(stacks.size(), 11u);
  const IioStack* s = FindStack(stacks, "0000:80");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->index, 0);
  EXPECT_EQ(s->die, 1);
  EXPECT_EQ(s->free_running_pmu(), "uncore_iio_free_running_0");
  EXPECT_EQ(FindStack(stacks, "0000:40"), nullptr);
  EXPECT_EQ(FindStack(stacks, ""), nullptr);
}

TEST(IioMapping, NoPmusNoStacks) {
  EXPECT_TRUE(ListIioStacks(RNIC_FIXTURES_DIR "/roce/sys").empty());
  // The perf fixture has uncore_iio_0 without die files (older kernel).
  EXPECT_TRUE(ListIioStacks(RNIC_FIXTURES_DIR "/perf").empty());
}

TEST(IioMapping, GroupsFunctionsByStackFirstDeviceReports) {
  const auto stacks = ListIioStacks(kIio);
  const auto uses = MapFunctions(
      stacks, {{"mlx5_1", "0000:81:00.1", "0000:80"},
               {"mlx5_0", "0000:81:00.0", "0000:80"},
               {"irdma0", "0000:17:00.0", "0000:16"},
               {"bnxt_re0", "0000:41:00.0", "0000:40"},  // no stack
               {"rxe0", "", ""}});                       // virtual
  ASSERT_EQ(uses.size(), 2u);
  // Sorted by device: irdma0 first, then the mlx5 pair on one stack.
  EXPECT_EQ(uses[0].stack.root_bus, "0000:16");
  ASSERT_EQ(uses[0].functions.size(), 1u);
  EXPECT_EQ(uses[1].stack.index, 0);
  EXPECT_EQ(uses[1].stack.die, 1);
  ASSERT_EQ(uses[1].functions.size(), 2u);
  EXPECT_EQ(uses[1].functions[0].device, "mlx5_0");  // reports the stack
  EXPECT_EQ(uses[1].functions[1].device, "mlx5_1");
}

TEST(IioMapping, BandwidthEventsInBytes) {
  auto pmu = LoadPmu(kIio, "uncore_iio_free_running_2");
  ASSERT_TRUE(pmu.ok()) << pmu.error().message;
  auto events = BandwidthEvents(*pmu);
  ASSERT_TRUE(events.ok()) << events.error().message;
  ASSERT_EQ(events->size(), 16u);  // ioclk is not a bandwidth event
  int in = 0;
  for (const auto& e : *events) {
    in += e.direction == "in";
    // 3.814697266e-6 MiB = 4 bytes per count.
    EXPECT_NEAR(e.bytes_per_count, 4.0, 1e-6) << e.name;
  }
  EXPECT_EQ(in, 8);
}

TEST(IioMapping, UnitThatIsNoByteUnitIsRefused) {
  auto pmu = LoadPmu(kIio, "uncore_iio_free_running_5");
  ASSERT_TRUE(pmu.ok());
  auto events = BandwidthEvents(*pmu);
  ASSERT_FALSE(events.ok());
  EXPECT_NE(events.error().message.find("GT/s"), std::string::npos);
  EXPECT_NEAR(*BytesPerCount(PmuEvent{"", 2.0, "KiB"}), 2048.0, 1e-9);
  EXPECT_NEAR(*BytesPerCount(PmuEvent{"", 0.5, ""}), 0.5, 1e-9);
}

TEST(IioMapping, RootBusFromTheResolvedPciPath) {
  EXPECT_EQ(sysfs::PciRootBus("/sys/devices/pci0000:80/0000:80:01.0/"
                              "0000:81:00.0"),
            "0000:80");
  EXPECT_EQ(sysfs::PciRootBus("/x/devices/pci0001:3a/0001:3a:00.0"), "0001:3a");
  EXPECT_EQ(sysfs::PciRootBus("/sys/devices/virtual/infiniband/rxe0"), "");
  EXPECT_EQ(sysfs::PciRootBus("/sys/devices/pcixyzw:80/a"), "");
}

TEST(IioMapping, HostModelReadsTheRootBus) {
  host::HostModel model(
      host::HostModel::Options{RNIC_FIXTURES_DIR "/roce/sys", nullptr});
  const auto snap = model.Refresh();
  const host::Device* mlx = snap->Find("mlx5_0");
  ASSERT_NE(mlx, nullptr);
  EXPECT_EQ(mlx->pci_address, "0000:81:00.0");
  EXPECT_EQ(mlx->pci_root_bus, "0000:80");
  const host::Device* rxe = snap->Find("rxe0");
  ASSERT_NE(rxe, nullptr);
  EXPECT_EQ(rxe->pci_root_bus, "");
}

}  // namespace
}  // namespace rnic::perf
