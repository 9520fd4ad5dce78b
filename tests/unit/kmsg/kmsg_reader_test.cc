#include "collectors/kmsg/kmsg_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>

namespace rnic::kmsg {
namespace {

namespace fs = std::filesystem;
const std::string kFix = std::string(RNIC_FIXTURES_DIR) + "/kmsg";

// Waits (bounded) for `cond`; the bound only turns a hang into a failure.
bool Eventually(const std::function<bool()>& cond) {
  for (int i = 0; i < 1000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

class KmsgReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("kmsg_reader_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  KmsgReaderOptions Opts(const fs::path& path, bool seek_end) {
    KmsgReaderOptions o;
    o.path = path.string();
    o.sysfs_root = kFix + "/sys";
    o.seek_end = seek_end;
    o.idle_wait = std::chrono::milliseconds(20);
    return o;
  }
  fs::path dir_;
};

// A device that leaves the host model takes its counts with it; counts of
// PCI functions without a device ("") stay.
TEST_F(KmsgReaderTest, RemovedDeviceLeavesNoSeries) {
  const fs::path sys = dir_ / "sys";
  fs::copy(kFix + "/sys", sys,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  KmsgReaderOptions o = Opts(kFix + "/dmesg-burst.txt", false);
  o.sysfs_root = sys.string();
  auto r = KmsgReader::Start(o);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  auto& reader = **r;
  ASSERT_TRUE(Eventually([&] { return reader.records() == 5; }));
  auto devices_in = [&](MetricSet& out) {
    std::set<std::string> devs;
    for (const auto& f : out.families()) {
      for (const auto& m : f.metric) {
        devs.insert(std::string(LabelValue(m, "device")));
      }
    }
    return devs;
  };
  MetricSet before;
  reader.AppendTo(before, reader.host()->Refresh().get());
  EXPECT_TRUE(devices_in(before).contains("mlx5_0"));
  fs::remove_all(sys / "class/infiniband/mlx5_0");
  MetricSet after;
  reader.AppendTo(after, reader.host()->Refresh().get());
  const auto devs = devices_in(after);
  EXPECT_FALSE(devs.contains("mlx5_0"));
  EXPECT_TRUE(devs.contains("rxe0"));
  EXPECT_TRUE(devs.contains(""));  // the records counters and unknown PCI
}

TEST_F(KmsgReaderTest, CountsFixtureRecordsFromTheStart) {
  auto r = KmsgReader::Start(Opts(kFix + "/dmesg-burst.txt", false));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  auto& reader = **r;
  ASSERT_TRUE(Eventually([&] { return reader.records() == 5; }))
      << reader.records();
  EXPECT_EQ(reader.lost(), 1u);  // sequence 1004 is missing
  EXPECT_EQ(reader.CqErrors("mlx5_0", "0000:08:00.0", 0x1), 1u);
  EXPECT_EQ(reader.CqErrors("mlx5_0", "0000:08:00.0", 0x2), 1u);
  EXPECT_EQ(reader.CqErrors("rxe0", "0000:00:03.0", 0x1), 1u);  // dict only
  EXPECT_EQ(reader.CqErrors("", "0000:41:00.0", 0x1), 1u);  // unknown device
  MetricSet out;
  reader.AppendTo(out);
  const auto& fams = out.families();
  auto it = std::find_if(fams.begin(), fams.end(), [](const auto& f) {
    return f.name == "rnic_kernel_cq_errors_total";
  });
  ASSERT_NE(it, fams.end());
  ASSERT_EQ(it->metric.size(), 4u);
  bool saw_access = false;
  for (const auto& m : it->metric) {
    if (LabelValue(m, "syndrome") == "0x2") {
      saw_access = true;
      EXPECT_EQ(LabelValue(m, "reason"), "access_violation");
      EXPECT_EQ(LabelValue(m, "device"), "mlx5_0");
    }
  }
  EXPECT_TRUE(saw_access);
}

TEST_F(KmsgReaderTest, StartsAtTheEndOfTheLog) {
  const fs::path log = dir_ / "kmsg";
  fs::copy_file(kFix + "/dmesg-burst.txt", log);
  auto r = KmsgReader::Start(Opts(log, true));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  {
    std::ofstream app(log, std::ios::app);
    app << "6,2000,9000000,-;mlx5_core 0000:08:00.0: x: CQ error on CQN "
           "0x5, syndrome 0x1\n";
  }
  ASSERT_TRUE(Eventually([&] { return (*r)->records() == 1; }));
  // Only the appended record: the five already there were skipped.
  EXPECT_EQ((*r)->CqErrors("mlx5_0", "0000:08:00.0", 0x1), 1u);
  EXPECT_EQ((*r)->lost(), 0u);
}

TEST_F(KmsgReaderTest, DrainsABurstThroughAPipe) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto r = KmsgReader::Start(Opts(fifo, true));  // SEEK_END fails on a pipe
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  constexpr int kLines = 20000;
  {
    // Far more than the 64 KiB a pipe holds: the writer blocks until the
    // reader thread catches up, as a kernel burst would fill the ring.
    std::ofstream w(fifo);
    for (int i = 0; i < kLines; ++i) {
      if (i % 10 == 0) {
        w << "mlx5_core 0000:08:00.0: cq_err_event_notifier:517:(pid 0): CQ "
             "error on CQN 0x"
          << std::hex << i << std::dec << ", syndrome 0x1\n";
      } else {
        w << "some other kernel line number " << i << "\n";
      }
    }
  }
  ASSERT_TRUE(Eventually([&] { return (*r)->records() == kLines; }))
      << (*r)->records();
  EXPECT_EQ((*r)->CqErrors("mlx5_0", "0000:08:00.0", 0x1),
            static_cast<std::uint64_t>(kLines / 10));
}

// /dev/kmsg wakes a poller per record. The reader sleeps in poll() with no
// timeout while the log is quiet, and after a burst waits `coalesce` before
// looking again: a driver logging at every port query (rxe on a dummy
// netdev: "speed is unknown") costs a few wake-ups a second, not one per
// line.
TEST_F(KmsgReaderTest, QuietLogCostsNoWakeupsAndAStormFewPerCoalesce) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto o = Opts(fifo, true);
  o.coalesce = std::chrono::milliseconds(100);
  auto r = KmsgReader::Start(o);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  const int w = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(w, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ((*r)->wakeups(), 0u);  // a writer, but nothing written

  constexpr int kRecords = 200;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRecords; ++i) {
    const std::string line =
        "rxe: dummy" + std::to_string(i) + " speed is unknown\n";
    ASSERT_EQ(write(w, line.data(), line.size()),
              static_cast<ssize_t>(line.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(Eventually([&] { return (*r)->records() == kRecords; }))
      << (*r)->records();
  const auto spent = std::chrono::steady_clock::now() - t0;
  // One wake-up per started 100 ms of the storm (and one to spare), however
  // slowly a loaded host ran the writer; one per record without coalescing.
  const auto bound =
      static_cast<std::uint64_t>(spent / std::chrono::milliseconds(100) + 2);
  EXPECT_LE((*r)->wakeups(), bound) << "in " << spent.count() << " ns";
  close(w);
}

TEST_F(KmsgReaderTest, MissingLogIsAnError) {
  auto r = KmsgReader::Start(Opts(dir_ / "absent", true));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errno_value, ENOENT);
}

// /dev/zero spun a core without a log line; a directory read nothing
// forever. Stand-ins for the log (a file, a FIFO, /dev/null) are fine.
TEST_F(KmsgReaderTest, PathMustBeTheKernelLogOrAStandIn) {
  const std::string file = (dir_ / "kmsg").string();
  std::ofstream(file) << "";
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& p : {file, fifo, std::string("/dev/null"),
                               std::string("/nonexistent/kmsg")}) {
    EXPECT_TRUE(CheckKmsgPath(p).ok()) << p;
  }
  if (access("/dev/kmsg", F_OK) == 0) {
    EXPECT_TRUE(CheckKmsgPath("/dev/kmsg").ok());
  }
  for (const std::string& p : {std::string("/dev/zero"), dir_.string()}) {
    Status st = CheckKmsgPath(p);
    ASSERT_FALSE(st.ok()) << p;
    EXPECT_EQ(st.error().message.rfind(p + ": not the kernel log", 0), 0u)
        << st.error().message;
  }
}

// A source that never runs dry (a FIFO fed without end) is read in bounded
// batches with a pause between them, never in one endless wake-up: 4 MiB
// of lines take several wake-ups of at most 64 reads each.
TEST_F(KmsgReaderTest, EndlessInputIsReadInBoundedBatches) {
  const fs::path log = dir_ / "big";
  const std::string line = "6,1,0,-;not a cq error but long enough........\n";
  const std::size_t lines = (4u << 20) / line.size();
  {
    std::ofstream out(log);
    for (std::size_t i = 0; i < lines; ++i) out << line;
  }
  KmsgReaderOptions o = Opts(log, false);
  o.coalesce = std::chrono::milliseconds(1);
  auto r = KmsgReader::Start(o);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_TRUE(Eventually([&] { return (*r)->records() == lines; }))
      << (*r)->records() << " of " << lines;
  // 64 reads of 16 KiB: 1 MiB per wake-up at most.
  EXPECT_GE((*r)->wakeups(), 4u);
}

}  // namespace
}  // namespace rnic::kmsg
