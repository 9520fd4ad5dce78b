#include "collectors/host/host_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "collectors/host/model_view.h"
#include "tests/unit/sysfs/sysfs_test_util.h"

namespace rnic::host {
namespace {

namespace fs = std::filesystem;
using sysfs::testing::ScratchSysfs;

const std::string kKmsgSys = std::string(RNIC_FIXTURES_DIR) + "/kmsg/sys";

TEST(HostModelTest, ReadsDevicesPortsAndWhatTheySitOn) {
  HostModel m({sysfs::testing::FixtureSysfs()});
  const auto snap = m.Refresh();
  ASSERT_EQ(snap->devices.size(), 9u);
  const Device* d = snap->Find("mlx5_0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->node_type, "CA");
  EXPECT_EQ(d->fw_ver, "22.36.1010");
  EXPECT_EQ(d->pci_address, "0000:03:00.0");
  EXPECT_EQ(d->numa_node, "0");
  ASSERT_TRUE(d->numa);
  EXPECT_EQ(*d->numa, 0);
  ASSERT_EQ(d->ports.size(), 1u);
  EXPECT_EQ(d->ports[0].link_layer, "Ethernet");
  EXPECT_EQ(d->ports[0].netdev, "enp3s0f0np0");
  EXPECT_EQ(d->ports[0].labels->text(), "device=\"mlx5_0\",port=\"1\"");
  EXPECT_EQ(d->labels->text(), "device=\"mlx5_0\"");
  // rxe: no PCI function of its own; the netdev is its parent.
  const Device* rxe = snap->Find("rxe1");
  ASSERT_NE(rxe, nullptr);
  EXPECT_EQ(rxe->pci_address, "");
  EXPECT_EQ(rxe->ports.at(0).netdev, "dummy0");
}

TEST(HostModelTest, NothingChangedCostsNoDeviceReadAndKeepsTheSnapshot) {
  HostModel m({sysfs::testing::FixtureSysfs()});
  const auto first = m.Refresh();
  const auto reads = m.stats().device_reads;
  EXPECT_EQ(reads, first->devices.size());
  for (int i = 0; i < 5; ++i) {
    const auto again = m.Refresh();
    EXPECT_EQ(again.get(), first.get());
  }
  EXPECT_EQ(m.stats().device_reads, reads);
  EXPECT_EQ(m.stats().checks, 6u);
}

TEST(HostModelTest, RemovalRenameAndNewRegistrationAreSeen) {
  ScratchSysfs tree;
  HostModel m({tree.root()});
  const auto s1 = m.Refresh();
  const std::uint64_t rxe0 = s1->Find("rxe0")->instance;
  const std::uint64_t rxe1 = s1->Find("rxe1")->instance;

  // Hot-remove rxe1.
  const auto link = tree.ib("rxe1");
  const auto target = fs::read_symlink(link);
  fs::remove(link);
  const auto s2 = m.Refresh();
  EXPECT_GT(s2->generation, s1->generation);
  EXPECT_EQ(s2->Find("rxe1"), nullptr);
  EXPECT_EQ(s2->devices.size(), s1->devices.size() - 1);

  // Back under another name (a rename): a device the model has not seen.
  fs::create_symlink(target, tree.ib("rxe9"));
  const auto s3 = m.Refresh();
  ASSERT_NE(s3->Find("rxe9"), nullptr);
  EXPECT_NE(s3->Find("rxe9")->instance, rxe1);
  EXPECT_EQ(s3->Find("rxe9")->ports.at(0).labels->text(),
            "device=\"rxe9\",port=\"1\"");

  // rxe0 registered again under the same name: a new instance.
  const auto dir = fs::canonical(tree.ib("rxe0"));
  const auto saved = dir.parent_path() / "rxe0.saved";
  fs::rename(dir, saved);
  fs::copy(saved, dir,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove_all(saved);
  const auto s4 = m.Refresh();
  ASSERT_NE(s4->Find("rxe0"), nullptr);
  EXPECT_NE(s4->Find("rxe0")->instance, rxe0);
}

TEST(HostModelTest, InvalidateReadsTheDeviceAgainAndKeepsItsInstance) {
  ScratchSysfs tree;
  HostModel m({tree.root()});
  const auto s1 = m.Refresh();
  const auto reads = m.stats().device_reads;
  tree.Write("rxe0/fw_ver", "1.2.3\n");
  EXPECT_EQ(m.Refresh().get(), s1.get());  // nothing says it changed
  m.Invalidate("rxe0");
  const auto s2 = m.Refresh();
  EXPECT_EQ(m.stats().device_reads, reads + 1);
  EXPECT_EQ(s2->Find("rxe0")->fw_ver, "1.2.3");
  EXPECT_EQ(s2->Find("rxe0")->instance, s1->Find("rxe0")->instance);
}

TEST(HostModelTest, NetlinkNamesTheIndicesAndOnlyOnChange) {
  int dumps = 0;
  HostModel m(
      {sysfs::testing::FixtureSysfs(), [&]() {
         ++dumps;
         return Result<std::vector<NetlinkDevice>>(
             std::vector<NetlinkDevice>{{7, "mlx5_0", 1}, {0, "rxe0", 1}});
       }});
  const auto s1 = m.Refresh();
  EXPECT_EQ(s1->Find("mlx5_0")->index, 7u);
  EXPECT_EQ(s1->Find("rxe0")->index, 0u);  // the kernel's first index
  EXPECT_EQ(s1->FindIndex(0)->name, "rxe0");
  // Devices netlink does not list stay unresolved and are asked for again.
  EXPECT_FALSE(s1->Find("rxe1")->has_index);
  EXPECT_TRUE(s1->Find("rxe0")->has_index);
  // Right after a change the unresolved devices are asked about at each of
  // the next 8 checks (netlink lists a new device a moment after sysfs
  // shows it); then, nothing changing, only every 16th check.
  const int after_first = dumps;
  for (int i = 0; i < 8; ++i) (void)m.Refresh();  // checks 2-9
  EXPECT_EQ(dumps, after_first + 8);
  for (int i = 0; i < 6; ++i) (void)m.Refresh();  // checks 10-15
  EXPECT_EQ(dumps, after_first + 8);
  (void)m.Refresh();  // check 16
  EXPECT_EQ(dumps, after_first + 9);
  for (int i = 0; i < 15; ++i) (void)m.Refresh();  // checks 17-31
  EXPECT_EQ(dumps, after_first + 9);
  (void)m.Refresh();  // check 32
  EXPECT_EQ(dumps, after_first + 10);
}

TEST(HostModelTest, ADeviceNetlinkListsAMomentLaterGetsItsIndexAtOnce) {
  // rdma link add: the device's sysfs entry appears before RDMA netlink
  // lists it. A check in between must not leave it unresolved for 16.
  int dumps = 0;
  HostModel m({sysfs::testing::FixtureSysfs(), [&]() {
                 ++dumps;
                 std::vector<NetlinkDevice> v{{7, "mlx5_0", 1}, {0, "rxe0", 1}};
                 if (dumps > 1) v.push_back({9, "rxe1", 1});
                 return Result<std::vector<NetlinkDevice>>(v);
               }});
  EXPECT_FALSE(m.Refresh()->Find("rxe1")->has_index);
  const auto next = m.Refresh();
  ASSERT_TRUE(next->Find("rxe1")->has_index);
  EXPECT_EQ(next->Find("rxe1")->index, 9u);
}

TEST(HostModelTest, ADeviceReadBeforeItsPortsExistIsReadAgain) {
  // Caught between device_add and the port attributes: no port in ports/
  // yet. (The port comes without touching the device directory, whose
  // inode and ctime tell the model of a new registration.)
  ScratchSysfs tree;
  const auto ports = fs::canonical(tree.ib("rxe1")) / "ports";
  const auto aside = ports.parent_path() / "ports.later";
  fs::rename(ports, aside);
  fs::create_directory(ports);
  HostModel m(
      {tree.root(), [&]() {
         return Result<std::vector<NetlinkDevice>>(
             std::vector<NetlinkDevice>{{0, "rxe0", 1}, {1, "rxe1", 1}});
       }});
  EXPECT_TRUE(m.Refresh()->Find("rxe1")->ports.empty());
  fs::rename(aside / "1", ports / "1");
  // Netlink counts a port the sysfs read did not see: read again.
  const auto next = m.Refresh();
  ASSERT_EQ(next->Find("rxe1")->ports.size(), 1u);
  EXPECT_EQ(next->Find("rxe1")->ports.at(0).labels->text(),
            "device=\"rxe1\",port=\"1\"");
}

TEST(HostModelTest, WithoutSysfsNetlinkAloneDescribesTheDevices) {
  std::vector<NetlinkDevice> listed{{1, "rxe0", 1}, {2, "mlx5_0", 2}};
  HostModel m({"/nonexistent-sysfs",
               [&]() { return Result<std::vector<NetlinkDevice>>(listed); }});
  const auto s1 = m.Refresh();
  ASSERT_EQ(s1->devices.size(), 2u);
  EXPECT_EQ(s1->devices[0]->name, "mlx5_0");  // sorted by name
  EXPECT_FALSE(s1->devices[0]->in_sysfs);
  EXPECT_EQ(s1->devices[0]->ports.size(), 2u);
  EXPECT_EQ(m.Refresh().get(), s1.get());
  listed.pop_back();  // mlx5_0 removed
  const auto s2 = m.Refresh();
  ASSERT_EQ(s2->devices.size(), 1u);
  EXPECT_EQ(s2->devices[0]->name, "rxe0");
}

// The one rule for a port's netdev, on the three ways a host shows it.
TEST(HostModelTest, FindsTheNetdevOfEveryEthernetPort) {
  HostModel m({std::string(RNIC_FIXTURES_DIR) + "/roce/sys"});
  const auto snap = m.Refresh();
  std::vector<std::string> eth;
  for (const auto& d : snap->devices) {
    for (const auto& p : d->ports) {
      if (p.ethernet()) eth.push_back(d->name + "/" + p.label);
    }
  }
  EXPECT_EQ(eth, (std::vector<std::string>{"mlx5_0/1", "mlx5_2/1", "rxe0/1"}));
  // gid_attrs/ndevs
  EXPECT_EQ(snap->Find("mlx5_0")->ports.at(0).netdev, "enp129s0f0np0");
  // device/net (no GID names a netdev)
  EXPECT_EQ(snap->Find("mlx5_2")->ports.at(0).netdev, "ens5f0v0");
  // parent (GID entry 0 empty)
  EXPECT_EQ(snap->Find("rxe0")->ports.at(0).netdev, "eth0");
  // InfiniBand ports have none.
  EXPECT_EQ(snap->Find("mlx5_1")->ports.at(0).link_layer, "InfiniBand");
  EXPECT_EQ(snap->Find("mlx5_1")->ports.at(0).netdev, "");
}

TEST(HostModelTest, MapsPciFunctionsToDevices) {
  HostModel m({kKmsgSys});
  const auto snap = m.Refresh();
  // Hardware device: its own `device` link.
  ASSERT_NE(snap->FindPci("0000:08:00.0"), nullptr);
  EXPECT_EQ(snap->FindPci("0000:08:00.0")->name, "mlx5_0");
  // Dangling link: the address still comes from the link text.
  ASSERT_NE(snap->FindPci("0000:08:00.1"), nullptr);
  EXPECT_EQ(snap->FindPci("0000:08:00.1")->name, "mlx5_1");
  // rxe: parent eth0 -> virtio0 under 0000:00:03.0 (as in the VM).
  ASSERT_NE(snap->FindPci("0000:00:03.0"), nullptr);
  EXPECT_EQ(snap->FindPci("0000:00:03.0")->name, "rxe0");
  EXPECT_EQ(snap->FindPci("0000:ff:00.0"), nullptr);
}

TEST(HostModelTest, MissingTreeGivesNoDevices) {
  HostModel m({kKmsgSys + "/nonexistent"});
  EXPECT_TRUE(m.Refresh()->devices.empty());
}

// A collector given the exporter's model reads the snapshot the runner
// refreshed; one built alone refreshes a model of its own at every scrape.
TEST(ModelViewTest, SharedModelIsReadOwnModelIsRefreshed) {
  ScratchSysfs tree;
  auto shared = std::make_shared<HostModel>(HostModel::Options{tree.root()});
  ModelView of_shared(shared, HostModel::Options{"/nonexistent"});
  ModelView own(nullptr, HostModel::Options{tree.root()});
  ASSERT_EQ(&of_shared.model(), shared.get());
  const auto s1 = of_shared.Get();
  const auto o1 = own.Get();
  ASSERT_NE(s1->Find("rxe1"), nullptr);
  ASSERT_NE(o1->Find("rxe1"), nullptr);

  fs::remove(tree.ib("rxe1"));
  // Nobody refreshed the shared model: its readers keep the snapshot.
  EXPECT_EQ(of_shared.Get().get(), s1.get());
  EXPECT_EQ(own.Get()->Find("rxe1"), nullptr);
  EXPECT_EQ(own.model().stats().checks, 2u);
  shared->Refresh();
  EXPECT_EQ(of_shared.Get()->Find("rxe1"), nullptr);
}

TEST(ModelViewTest, GenerationGateOpensOncePerChange) {
  ScratchSysfs tree;
  ModelView view(nullptr, HostModel::Options{tree.root()});
  GenerationGate gate;
  EXPECT_TRUE(gate.Changed(*view.Get()));  // the first snapshot is news
  EXPECT_FALSE(gate.Changed(*view.Get()));
  EXPECT_FALSE(gate.Changed(*view.Get()));
  fs::remove(tree.ib("rxe0"));
  EXPECT_TRUE(gate.Changed(*view.Get()));
  EXPECT_FALSE(gate.Changed(*view.Get()));
}

}  // namespace
}  // namespace rnic::host
