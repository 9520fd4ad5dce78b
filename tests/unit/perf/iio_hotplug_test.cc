// IIO bandwidth per RNIC follows the host model: RDMA devices hot-added,
// removed and renamed after start, on a scratch sysfs tree (the perf-iio
// fixture's PMUs plus RDMA devices built per test). perf_event_open of
// uncore PMUs is impossible here, so the syscall is faked: each "counter" is
// a memfd of successive (value, enabled, running) records that the real
// read(2) path consumes, and /proc/self/fd shows which are still open.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "collectors/common/log_once.h"
#include "collectors/host/host_model.h"
#include "collectors/perf/iio_bandwidth.h"
#include "collectors/perf/perf_collector.h"
#include "tests/unit/common/captured_log.h"
#include "tests/unit/series_map.h"

namespace rnic::perf {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFakeName = "rnic-fake-perf-";

// perf_event_open's stand-in: a counter reading 1000, 2000, ... counts.
class FakePerf {
 public:
  PerfOpener opener() {
    return [this](std::uint32_t type, const EncodedEvent&,
                  int cpu) -> Result<PerfCounter> {
      ++opens_;
      const std::string name =
          kFakeName + std::to_string(type) + "-" + std::to_string(cpu);
      const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
      if (fd < 0) return Error::FromErrno("memfd_create", errno);
      for (std::uint64_t i = 1; i <= 64; ++i) {
        const std::uint64_t rec[3] = {1000 * i, 1, 1};
        if (::write(fd, rec, sizeof rec) != sizeof rec) {
          ::close(fd);
          return Error{"write memfd"};
        }
      }
      ::lseek(fd, 0, SEEK_SET);
      return PerfCounter::Adopt(fd);
    };
  }
  [[nodiscard]] int opens() const { return opens_; }

 private:
  int opens_ = 0;
};

// Fake counters open in this process; `which` narrows to "<type>-<cpu>".
int OpenFakes(const std::string& which = "") {
  int n = 0;
  const std::string needle = kFakeName + which;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = fs::read_symlink(e.path(), ec).string();
    if (!ec && target.find(needle) != std::string::npos) ++n;
  }
  return n;
}
// uncore_iio_free_running_0 (type 40) on die 1 (cpumask 0,28): root bus 80.
const std::string kStack0Die1 = "40-28";
// uncore_iio_free_running_1 (type 41) on die 0: root bus 16.
const std::string kStack1Die0 = "41-0";

// The perf-iio PMUs and RDMA devices on PCI functions under a root bus.
class Tree {
 public:
  Tree() {
    static std::atomic<int> seq{0};
    root_ = fs::path(fs::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") /
            ("rnic_iio_" + std::to_string(::getpid()) + "_" +
             std::to_string(seq++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "class/infiniband");
    fs::copy(RNIC_FIXTURES_DIR "/perf-iio/bus", root_ / "bus",
             fs::copy_options::recursive);
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  [[nodiscard]] std::string root() const { return root_.string(); }

  // An RDMA device `name` on PCI function `pci` below root bus `bus`.
  void Add(const std::string& name, const std::string& bus,
           const std::string& pci) {
    const fs::path fn =
        fs::path("devices") / ("pci" + bus) / (bus + ":01.0") / pci;
    const fs::path dev = fn / "infiniband" / name;
    fs::create_directories(root_ / dev / "ports/1");
    std::ofstream(root_ / dev / "ports/1/link_layer") << "Ethernet\n";
    fs::create_symlink("../../../" + pci, root_ / dev / "device");
    fs::create_symlink("../.." / dev, root_ / "class/infiniband" / name);
  }
  void Remove(const std::string& name) {
    const fs::path link = root_ / "class/infiniband" / name;
    const fs::path dir = fs::canonical(link);
    fs::remove(link);
    fs::remove_all(dir);
  }
  // rdma dev set <from> name <to>: the class entry and directory renamed.
  void Rename(const std::string& from, const std::string& to) {
    const fs::path link = root_ / "class/infiniband" / from;
    const fs::path target = fs::read_symlink(link);
    const fs::path dir = fs::canonical(link);
    fs::rename(dir, dir.parent_path() / to);
    fs::remove(link);
    fs::create_symlink(target.parent_path() / to,
                       root_ / "class/infiniband" / to);
  }
  void RemovePmus() {
    for (const auto& e :
         fs::directory_iterator(root_ / "bus/event_source/devices")) {
      fs::remove_all(e.path());
    }
  }

 private:
  fs::path root_;
};

using Series = rnic::testing::SeriesMap;  // "name{k=v,...}" -> value
using rnic::testing::ToSeriesMap;

// Series of the family whose labels contain `needle`.
int Count(const Series& s, const std::string& family,
          const std::string& needle = "") {
  int n = 0;
  for (const auto& [k, v] : s) {
    n += k.rfind(family + "{", 0) == 0 && k.find(needle) != std::string::npos;
  }
  return n;
}

constexpr const char* kBytes = "rnic_pcie_iio_bytes_total";
constexpr const char* kInfo = "rnic_pcie_iio_stack_info";

struct Fixture {
  Tree tree;
  FakePerf perf;
  LogOnce log{"perf"};
  host::HostModel model{host::HostModel::Options{tree.root(), nullptr}};
  std::optional<IioBandwidth> iio;

  void Start() {
    iio.emplace(tree.root(), perf.opener(), log);
    iio->Update(*model.Refresh());
  }
  // One scrape as the runner does it: the model refreshed, then Collect.
  Series Scrape() {
    iio->Update(*model.Refresh());
    MetricSet out;
    iio->Collect(out);
    return ToSeriesMap(out);
  }
};

TEST(IioHotplug, AHotAddedDeviceGetsItsStackOpenedOncePerStack) {
  Fixture f;
  f.tree.Add("mlx5_0", "0000:80", "0000:81:00.0");
  f.Start();
  Series s = f.Scrape();
  EXPECT_EQ(Count(s, kBytes, "device=mlx5_0,"), 2);
  EXPECT_EQ(OpenFakes(kStack0Die1), 16);  // bw_in_port0-7, bw_out_port0-7
  const int opens = f.perf.opens();

  // A second function on the same stack: no new counter, reported once.
  f.tree.Add("mlx5_1", "0000:80", "0000:81:00.1");
  s = f.Scrape();
  EXPECT_EQ(s.count(std::string(kInfo) +
                    "{device=mlx5_1,pci=0000:81:00.1,root_bus=0000:80,"
                    "pmu=uncore_iio_0,die=1,reported_as=mlx5_0,}"),
            1u);
  EXPECT_EQ(Count(s, kBytes, "device=mlx5_1,"), 0);
  EXPECT_EQ(Count(s, kBytes), 2);
  EXPECT_EQ(f.perf.opens(), opens);
  EXPECT_EQ(OpenFakes(kStack0Die1), 16);

  // A device on another stack: that stack's counters opened.
  f.tree.Add("irdma0", "0000:16", "0000:17:00.0");
  s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo, "device=irdma0,"), 1);
  EXPECT_GT(s[std::string(kBytes) + "{device=irdma0,direction=in,}"], 0);
  EXPECT_EQ(OpenFakes(kStack1Die0), 16);
  EXPECT_EQ(f.perf.opens(), opens + 16);
  EXPECT_EQ(f.iio->open_stacks(), 2u);
}

TEST(IioHotplug, ARemovedDevicesSeriesGoAndAnUnusedStackIsClosed) {
  Fixture f;
  f.tree.Add("mlx5_0", "0000:80", "0000:81:00.0");
  f.tree.Add("mlx5_1", "0000:80", "0000:81:00.1");
  f.tree.Add("irdma0", "0000:16", "0000:17:00.0");
  f.Start();
  EXPECT_EQ(Count(f.Scrape(), kBytes), 4);
  EXPECT_EQ(OpenFakes(), 32);
  const int opens = f.perf.opens();

  f.tree.Remove("irdma0");
  Series s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo, "irdma0"), 0);
  EXPECT_EQ(Count(s, kBytes, "irdma0"), 0);
  EXPECT_EQ(OpenFakes(kStack1Die0), 0);  // file descriptors released
  EXPECT_EQ(OpenFakes(kStack0Die1), 16);

  // The reporting device goes: the other one on the stack reports it, on
  // the counters already open.
  f.tree.Remove("mlx5_0");
  s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo, "mlx5_0"), 0);
  EXPECT_EQ(Count(s, kBytes, "mlx5_0"), 0);
  EXPECT_EQ(Count(s, kBytes, "device=mlx5_1,"), 2);
  EXPECT_EQ(Count(s, kInfo, "reported_as=mlx5_1,"), 1);
  EXPECT_EQ(f.perf.opens(), opens);

  CapturedLog log;
  f.tree.Remove("mlx5_1");
  s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo) + Count(s, kBytes), 0);
  EXPECT_EQ(OpenFakes(), 0);
  EXPECT_EQ(f.iio->open_stacks(), 0u);
  EXPECT_NE(log.Take().find("no RDMA PCI function on a mapped IIO stack"),
            std::string::npos);
}

TEST(IioHotplug, ARenamedDevicesSeriesCarryTheNewName) {
  Fixture f;
  f.tree.Add("irdma0", "0000:16", "0000:17:00.0");
  f.Start();
  EXPECT_EQ(Count(f.Scrape(), kBytes, "device=irdma0,"), 2);
  const int opens = f.perf.opens();

  f.tree.Rename("irdma0", "irdma7");
  const Series s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo, "irdma0") + Count(s, kBytes, "irdma0"), 0);
  EXPECT_EQ(Count(s, kInfo, "device=irdma7,"), 1);
  EXPECT_EQ(Count(s, kInfo, "reported_as=irdma7,"), 1);
  EXPECT_EQ(Count(s, kBytes, "device=irdma7,"), 2);
  // Same stack: the counters stay open, none opened again.
  EXPECT_EQ(f.perf.opens(), opens);
  EXPECT_EQ(OpenFakes(kStack1Die0), 16);
}

TEST(IioHotplug, RemapsOnlyWhenTheHostModelChangedAndAbsenceIsLoggedOnce) {
  Fixture f;
  f.tree.Add("mlx5_0", "0000:80", "0000:81:00.0");
  f.Start();
  const int opens = f.perf.opens();
  // The PMUs go (uncore driver unloaded): the die files are not read at
  // scrapes while the host model stays the same.
  f.tree.RemovePmus();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Count(f.Scrape(), kBytes, "device=mlx5_0,"), 2);
  }
  EXPECT_EQ(f.perf.opens(), opens);

  // The next change of the model maps again: nothing mapped, nothing
  // open, one log line however often the model changes after.
  CapturedLog log;
  f.tree.Add("irdma0", "0000:16", "0000:17:00.0");
  Series s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo) + Count(s, kBytes), 0);
  EXPECT_EQ(OpenFakes(), 0);
  f.tree.Remove("irdma0");
  (void)f.Scrape();
  f.tree.Add("irdma1", "0000:16", "0000:17:00.0");
  s = f.Scrape();
  EXPECT_EQ(Count(s, kInfo) + Count(s, kBytes), 0);
  const std::string lines = log.Take();
  std::size_t n = 0;
  for (std::size_t p = 0;
       (p = lines.find("no RDMA PCI function", p)) != std::string::npos; ++p) {
    ++n;
  }
  EXPECT_EQ(n, 1u) << lines;
}

// Through the collector (its own host model, the real perf_event_open,
// which fails on the fixture's PMU types): a device added after start is
// mapped, and no scrape fails.
TEST(IioHotplug, TheCollectorFollowsAHotAddedDeviceAndNeverFailsAScrape) {
  Tree tree;
  tree.Add("mlx5_0", "0000:80", "0000:81:00.0");
  const CollectorSpec spec = MakePerfCollectorSpec();
  CollectorArgs args;
  args.paths.sysfs = tree.root();
  args.options = spec.ParseOptions().value();
  args.config = YAML::Load("");
  auto c = spec.factory(args);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto scrape = [&] {
    MetricSet out;
    EXPECT_TRUE((*c)->Collect(ScrapeContext{}, out).ok());
    return ToSeriesMap(out);
  };
  EXPECT_EQ(Count(scrape(), kInfo, "device=mlx5_0,"), 1);
  tree.Add("irdma0", "0000:16", "0000:17:00.0");
  Series s = scrape();
  EXPECT_EQ(Count(s, kInfo, "device=irdma0,"), 1);
  tree.Remove("mlx5_0");
  s = scrape();
  EXPECT_EQ(Count(s, kInfo, "mlx5_0"), 0);
  EXPECT_EQ(Count(s, kInfo), 1);
}

}  // namespace
}  // namespace rnic::perf
