#include "collectors/sysfs/sysfs_source.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sysfs_test_util.h"

namespace rnic::sysfs {
namespace {

using testing::FixtureSysfs;
using testing::ScratchSysfs;

// The kernel boundary with injected failures: real reads of the fixture,
// except for files listed in `errors` ("<dir>/<name>" -> errno), and a log
// of every read.
struct FakeReader {
  std::map<std::string, int> errors;
  std::map<std::string, int> calls;

  ReadFileFn Fn() {
    return [this](int dirfd, std::string_view dir, const char* name, char* buf,
                  std::size_t cap) -> long {
      const std::string key = std::string(dir) + "/" + name;
      ++calls[key];
      if (auto it = errors.find(key); it != errors.end()) return -it->second;
      return ReadFileAt(dirfd, dir, name, buf, cap);
    };
  }
  int CallsUnder(const std::string& prefix) const {
    int n = 0;
    for (const auto& [k, v] : calls) {
      if (k.starts_with(prefix)) n += v;
    }
    return n;
  }
};

const DeviceSnapshot* Dev(const SysfsSource& s, std::string_view name) {
  for (const DeviceSnapshot* d : s.devices()) {
    if (d->name == name) return d;
  }
  return nullptr;
}

const CounterFile* File(const CounterDir& d, std::string_view name) {
  for (const CounterFile& f : d.files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> Names(const SysfsSource& s) {
  std::vector<std::string> out;
  for (const DeviceSnapshot* d : s.devices()) out.push_back(d->name);
  return out;
}

TEST(SysfsSourceTest, ReadsEveryFixtureDeviceSorted) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  EXPECT_EQ(Names(s), (std::vector<std::string>{"bnxt_re0", "hfi1_0", "i40iw0",
                                                "mlx4_0", "mlx5_0", "mlx5_1",
                                                "rdmap0s6", "rxe0", "rxe1"}));
}

TEST(SysfsSourceTest, Mlx5RocePf) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "mlx5_0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->model->node_type, "CA");
  EXPECT_EQ(d->model->fw_ver, "22.36.1010");
  EXPECT_EQ(d->model->board_id, "MT_0000000359");
  EXPECT_EQ(d->model->hca_type, "MT4125");
  EXPECT_EQ(d->model->node_guid, "b83f:d203:00a1:b2c4");
  EXPECT_EQ(d->model->driver, "mlx5_core");
  EXPECT_EQ(d->model->pci_address, "0000:03:00.0");
  EXPECT_EQ(d->model->numa_node, "0");
  ASSERT_TRUE(d->hw_counters.present);
  ASSERT_TRUE(d->hw_counters.lifespan_ms);
  EXPECT_EQ(*d->hw_counters.lifespan_ms, 10u);
  ASSERT_EQ(d->ports.size(), 1u);
  const PortSnapshot& p = d->ports[0];
  EXPECT_EQ(p.number, 1u);
  EXPECT_EQ(p.model->link_layer, "Ethernet");
  EXPECT_EQ(p.model->netdev, "enp3s0f0np0");
  EXPECT_EQ(p.state, 4u);
  EXPECT_EQ(p.phys_state, 5u);
  EXPECT_DOUBLE_EQ(*p.rate_bytes_per_second, 12.5e9);
  EXPECT_FALSE(p.lid);  // Ethernet: no LID
  EXPECT_TRUE(p.counters.present);
  EXPECT_FALSE(p.counters_ext.present);
  EXPECT_EQ(p.counters.files.size(), 21u);
  const CounterFile* ob = File(p.hw_counters, "out_of_buffer");
  ASSERT_NE(ob, nullptr);
  EXPECT_TRUE(ob->has_value);
  EXPECT_EQ(ob->value, 4294966000u);
  EXPECT_EQ(File(p.hw_counters, "lifespan"), nullptr);  // not a counter
}

TEST(SysfsSourceTest, Mlx5InfiniBandWithCountersExt) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "mlx5_1");
  ASSERT_NE(d, nullptr);
  const PortSnapshot& p = d->ports.at(0);
  EXPECT_EQ(p.model->link_layer, "InfiniBand");
  EXPECT_EQ(p.lid, 26u);
  EXPECT_EQ(p.model->netdev, "");
  EXPECT_EQ(d->model->numa_node, "1");
  EXPECT_TRUE(p.counters.present);
  EXPECT_TRUE(p.counters_ext.present);
  EXPECT_FALSE(p.hw_counters.present);
  EXPECT_EQ(File(p.counters_ext, "port_xmit_data_64")->value, 7652345187652u);
  EXPECT_EQ(File(p.counters, "port_xmit_data")->value, 4294967295u);
}

TEST(SysfsSourceTest, NotAvailableIsSkippedAndNeverReadAgain) {
  FakeReader fake;
  SysfsSource s(FixtureSysfs(), fake.Fn());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "i40iw0");
  ASSERT_NE(d, nullptr);
  const CounterDir& c = d->ports.at(0).counters;
  ASSERT_TRUE(c.present);
  ASSERT_FALSE(c.files.empty());
  for (const CounterFile& f : c.files) {
    EXPECT_FALSE(f.has_value) << f.name;
    EXPECT_EQ(f.unreadable, Unreadable::kNotAvailable) << f.name;
  }
  const int first = fake.CallsUnder("i40iw0/ports/1/counters/");
  EXPECT_EQ(first, static_cast<int>(c.files.size()));
  ASSERT_TRUE(s.Read({}).ok());
  EXPECT_EQ(fake.CallsUnder("i40iw0/ports/1/counters/"), first);
  // hw_counters of the same port still work.
  EXPECT_TRUE(File(Dev(s, "i40iw0")->ports.at(0).hw_counters, "tcpRetransSegs")
                  ->has_value);
}

TEST(SysfsSourceTest, EinvalAndEaccesAreRememberedPerFile) {
  FakeReader fake;
  fake.errors["mlx5_0/ports/1/hw_counters/out_of_buffer"] = EINVAL;
  fake.errors["mlx5_0/hw_counters/np_cnp_sent"] = EACCES;
  fake.errors["mlx5_1/ports/1/counters/symbol_error"] = EOPNOTSUPP;
  SysfsSource s(FixtureSysfs(), fake.Fn());
  for (int scrape = 0; scrape < 3; ++scrape) {
    ASSERT_TRUE(s.Read({}).ok());
    const DeviceSnapshot* d = Dev(s, "mlx5_0");
    const CounterFile* ob = File(d->ports.at(0).hw_counters, "out_of_buffer");
    EXPECT_FALSE(ob->has_value);
    EXPECT_EQ(ob->unreadable, Unreadable::kError);
    EXPECT_EQ(ob->error, EINVAL);
    const CounterFile* cnp = File(d->hw_counters, "np_cnp_sent");
    EXPECT_FALSE(cnp->has_value);
    EXPECT_EQ(cnp->error, EACCES);
    const CounterFile* sym =
        File(Dev(s, "mlx5_1")->ports.at(0).counters, "symbol_error");
    EXPECT_FALSE(sym->has_value);
    EXPECT_EQ(sym->error, EOPNOTSUPP);
    // Neighbours are unaffected.
    EXPECT_TRUE(File(d->ports.at(0).hw_counters, "out_of_sequence")->has_value);
  }
  EXPECT_EQ(fake.calls["mlx5_0/ports/1/hw_counters/out_of_buffer"], 1);
  EXPECT_EQ(fake.calls["mlx5_0/hw_counters/np_cnp_sent"], 1);
  EXPECT_EQ(fake.calls["mlx5_1/ports/1/counters/symbol_error"], 1);
  EXPECT_EQ(fake.calls["mlx5_0/ports/1/hw_counters/out_of_sequence"], 3);
}

TEST(SysfsSourceTest, TransientErrorIsRetried) {
  FakeReader fake;
  fake.errors["rxe0/ports/1/hw_counters/sent_pkts"] = EIO;
  SysfsSource s(FixtureSysfs(), fake.Fn());
  ASSERT_TRUE(s.Read({}).ok());
  const CounterFile* f =
      File(Dev(s, "rxe0")->ports.at(0).hw_counters, "sent_pkts");
  EXPECT_FALSE(f->has_value);
  EXPECT_EQ(f->unreadable, Unreadable::kTransient);
  fake.errors.clear();
  ASSERT_TRUE(s.Read({}).ok());
  f = File(Dev(s, "rxe0")->ports.at(0).hw_counters, "sent_pkts");
  EXPECT_TRUE(f->has_value);
  EXPECT_EQ(f->value, 146646u);
  EXPECT_EQ(fake.calls["rxe0/ports/1/hw_counters/sent_pkts"], 2);
}

TEST(SysfsSourceTest, DirectoryInPlaceOfFileGivesEisdir) {
  ScratchSysfs tree;
  const auto f = tree.ib("mlx5_0/ports/1/hw_counters/np_cnp_sent");
  std::filesystem::remove(f);
  std::filesystem::create_directory(f);
  SysfsSource s(tree.root());
  ASSERT_TRUE(s.Read({}).ok());
  const CounterFile* c =
      File(Dev(s, "mlx5_0")->ports.at(0).hw_counters, "np_cnp_sent");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->has_value);
  EXPECT_EQ(c->unreadable, Unreadable::kError);
  EXPECT_EQ(c->error, EISDIR);
}

TEST(SysfsSourceTest, MalformedValueIsNotZero) {
  ScratchSysfs tree;
  tree.Write("rxe0/ports/1/hw_counters/rcvd_pkts", "lots\n");
  SysfsSource s(tree.root());
  ASSERT_TRUE(s.Read({}).ok());
  const CounterFile* c =
      File(Dev(s, "rxe0")->ports.at(0).hw_counters, "rcvd_pkts");
  EXPECT_FALSE(c->has_value);
  EXPECT_EQ(c->unreadable, Unreadable::kMalformed);
}

TEST(SysfsSourceTest, BnxtReHasNoPmaCounters) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "bnxt_re0");
  EXPECT_FALSE(d->ports.at(0).counters.present);
  EXPECT_TRUE(d->ports.at(0).hw_counters.present);
  EXPECT_EQ(d->model->driver, "bnxt_en");
  EXPECT_EQ(d->ports.at(0).model->netdev, "ens2f0np0");
}

TEST(SysfsSourceTest, EfaRenamedDevice) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "rdmap0s6");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->model->driver, "efa");
  EXPECT_EQ(d->model->node_type, "unspecified");
  EXPECT_EQ(d->ports.at(0).model->link_layer, "Unknown");
  EXPECT_TRUE(File(d->hw_counters, "keep_alive_rcvd")->has_value);
  EXPECT_EQ(File(d->ports.at(0).hw_counters, "retrans_pkts")->value, 41u);
}

TEST(SysfsSourceTest, Hfi1OddCounterNames) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "hfi1_0");
  ASSERT_NE(File(d->hw_counters, "RcvOverflow,32"), nullptr);
  ASSERT_NE(File(d->hw_counters, "Pio Reserved 31"), nullptr);
  EXPECT_TRUE(File(d->hw_counters, "Pio Reserved 31")->has_value);
  EXPECT_EQ(d->ports.at(0).lid, 1u);
}

TEST(SysfsSourceTest, RxeFromVmCapture) {
  SysfsSource s(FixtureSysfs());
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "rxe0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->model->driver, "");  // virtual device: no device/ link
  EXPECT_EQ(d->model->pci_address, "");
  EXPECT_EQ(d->model->parent, "eth0");
  EXPECT_EQ(d->model->fw_ver, "");
  const PortSnapshot& p = d->ports.at(0);
  EXPECT_EQ(p.model->netdev, "eth0");
  EXPECT_DOUBLE_EQ(*p.rate_bytes_per_second, 3.125e9);
  EXPECT_EQ(*p.hw_counters.lifespan_ms, 12u);
  EXPECT_EQ(p.hw_counters.files.size(), 15u);
  EXPECT_EQ(File(p.hw_counters, "duplicate_request")->value, 1768u);
  EXPECT_EQ(File(p.hw_counters, "completer_retry_err")->value, 47u);
  EXPECT_FALSE(p.counters.present);
  const DeviceSnapshot* d1 = Dev(s, "rxe1");
  EXPECT_EQ(d1->ports.at(0).model->netdev, "dummy0");
  EXPECT_DOUBLE_EQ(*d1->ports.at(0).rate_bytes_per_second, 312500000.0);
}

TEST(SysfsSourceTest, FilterKeepsExcludedDevicesUntouched) {
  FakeReader fake;
  SysfsSource s(FixtureSysfs(), fake.Fn());
  ASSERT_TRUE(
      s.Read({}, [](std::string_view n) { return n != "mlx5_0"; }).ok());
  EXPECT_EQ(Dev(s, "mlx5_0"), nullptr);
  EXPECT_NE(Dev(s, "mlx5_1"), nullptr);
  EXPECT_EQ(fake.CallsUnder("mlx5_0/"), 0);
  EXPECT_GT(fake.CallsUnder("mlx5_1/"), 0);
}

TEST(SysfsSourceTest, OptionsSkipStateAndHwCounterReads) {
  FakeReader fake;
  SysfsSource s(FixtureSysfs(), fake.Fn());
  ReadOptions ro;
  ro.port_state = false;
  ro.hw_counters = false;
  ASSERT_TRUE(s.Read(ro).ok());
  const PortSnapshot& p = Dev(s, "mlx5_0")->ports.at(0);
  EXPECT_FALSE(p.state);
  EXPECT_FALSE(p.phys_state);
  EXPECT_EQ(fake.calls.count("mlx5_0/ports/1/state"), 0u);
  EXPECT_EQ(fake.calls.count("mlx5_0/ports/1/hw_counters/out_of_buffer"), 0u);
  EXPECT_FALSE(File(p.hw_counters, "out_of_buffer")->has_value);
  // lifespan is still read; PMA counters too.
  EXPECT_EQ(*p.hw_counters.lifespan_ms, 10u);
  EXPECT_TRUE(File(p.counters, "port_xmit_data")->has_value);
}

TEST(SysfsSourceTest, DevicesVanishAndAppear) {
  ScratchSysfs tree;
  SysfsSource s(tree.root());
  ASSERT_TRUE(s.Read({}).ok());
  const std::uint64_t rxe1_instance = Dev(s, "rxe1")->instance;
  const auto link = tree.ib("rxe1");
  const auto target = std::filesystem::read_symlink(link);
  std::filesystem::remove(link);
  ASSERT_TRUE(s.Read({}).ok());
  EXPECT_EQ(Dev(s, "rxe1"), nullptr);
  EXPECT_EQ(s.devices().size(), 8u);
  std::filesystem::create_symlink(target, link);
  ASSERT_TRUE(s.Read({}).ok());
  ASSERT_NE(Dev(s, "rxe1"), nullptr);
  // It was forgotten while absent: a new instance.
  EXPECT_NE(Dev(s, "rxe1")->instance, rxe1_instance);
}

TEST(SysfsSourceTest, SameInstanceIsCachedNewInstanceIsRelisted) {
  ScratchSysfs tree;
  SysfsSource s(tree.root());
  ASSERT_TRUE(s.Read({}).ok());
  const std::uint64_t first = Dev(s, "rxe0")->instance;
  ASSERT_TRUE(s.Read({}).ok());
  EXPECT_EQ(Dev(s, "rxe0")->instance, first);
  // Re-create rxe0 (rdma link delete + add) with one counter fewer: the
  // cached listing must not survive.
  const auto dir = std::filesystem::canonical(tree.ib("rxe0"));
  const auto saved = dir.parent_path() / "rxe0.saved";
  std::filesystem::rename(dir, saved);
  std::filesystem::copy(saved, dir,
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::copy_symlinks);
  std::filesystem::remove_all(saved);
  std::filesystem::remove(dir / "ports/1/hw_counters/ack_deferred");
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "rxe0");
  EXPECT_NE(d->instance, first);
  EXPECT_EQ(d->ports.at(0).hw_counters.files.size(), 14u);
}

TEST(SysfsSourceTest, MissingClassDirMeansNoDevices) {
  ScratchSysfs tree;
  std::filesystem::remove_all(tree.root() + "/class/infiniband");
  SysfsSource s(tree.root());
  EXPECT_TRUE(s.Read({}).ok());
  EXPECT_TRUE(s.devices().empty());
}

TEST(SysfsSourceTest, VanishedFileMarksDeviceForRelisting) {
  ScratchSysfs tree;
  // Reads through the boundary (no kept-open descriptors): on a disk
  // filesystem an open file survives unlink, on sysfs it reads ENODEV.
  FakeReader fake;
  SysfsSource s(tree.root(), fake.Fn());
  ASSERT_TRUE(s.Read({}).ok());
  const std::uint64_t first = Dev(s, "bnxt_re0")->instance;
  std::filesystem::remove(tree.ib("bnxt_re0/ports/1/hw_counters/dup_req"));
  ASSERT_TRUE(s.Read({}).ok());  // ENOENT: stale, relisted next time
  ASSERT_TRUE(s.Read({}).ok());
  const DeviceSnapshot* d = Dev(s, "bnxt_re0");
  EXPECT_NE(d->instance, first);
  EXPECT_EQ(File(d->ports.at(0).hw_counters, "dup_req"), nullptr);
}

TEST(SysfsSourceTest, KeepsDescriptorsOpenAndSeesNewValues) {
  ScratchSysfs tree;
  const long before = CachedFdsInUse();
  {
    SysfsSource s(tree.root());
    ASSERT_TRUE(s.Read({}).ok());
    const long kept = CachedFdsInUse() - before;
    EXPECT_GT(kept, 100);
    EXPECT_LE(kept + before, CachedFdBudget());
    // Rewritten in place (same inode): the kept descriptor reads the new
    // value, as sysfs regenerates it on every read at offset 0.
    tree.Write("rxe0/ports/1/hw_counters/sent_pkts", "146700\n");
    tree.Write("rxe0/ports/1/state", "1: DOWN\n");
    ASSERT_TRUE(s.Read({}).ok());
    EXPECT_EQ(CachedFdsInUse() - before, kept);  // no new descriptors
    const PortSnapshot& p = Dev(s, "rxe0")->ports.at(0);
    EXPECT_EQ(File(p.hw_counters, "sent_pkts")->value, 146700u);
    EXPECT_EQ(p.state, 1u);
  }
  EXPECT_EQ(CachedFdsInUse(), before);  // all closed with the source
}

TEST(SysfsSourceTest, ForgottenDeviceClosesItsDescriptors) {
  ScratchSysfs tree;
  SysfsSource s(tree.root());
  ASSERT_TRUE(s.Read({}).ok());
  const long all = CachedFdsInUse();
  ASSERT_TRUE(
      s.Read({}, [](std::string_view n) { return n != "bnxt_re0"; }).ok());
  EXPECT_LT(CachedFdsInUse(), all);
}

}  // namespace
}  // namespace rnic::sysfs
