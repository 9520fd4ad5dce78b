// The port_health collector on fixture trees: states from what it reads,
// flap and drop across scrapes (thresholds set so that no test depends on
// how long a scrape takes), and a hung read (a FIFO under the test sysfs
// root) that makes its port unknown without holding the scrape.
#include "collectors/health/port_health_collector.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "collectors/health/port_health_config.h"
#include "tests/unit/family_check.h"
#include "tests/unit/health/scrape_util.h"

namespace rnic {
namespace {

namespace fs = std::filesystem;
using std::chrono::hours;
using std::chrono::milliseconds;
using testing::ScrapeFlat;
using testing::ValueOf;

const std::string kSys = RNIC_FIXTURES_DIR "/health/sys";

std::string StateOf(const std::vector<testing::FlatSample>& s,
                    const std::string& device) {
  std::string state;
  for (const auto& x : s) {
    if (x.family == "rnic_port_health_state" && x.value == 1 &&
        x.labels.at("device") == device) {
      state = x.labels.at("state");
    }
  }
  return state;
}

std::string ReasonOf(const std::vector<testing::FlatSample>& s,
                     const std::string& device) {
  for (const auto& x : s) {
    if (x.family == "rnic_port_health_info" &&
        x.labels.at("device") == device) {
      return x.labels.contains("reason") ? x.labels.at("reason") : "";
    }
  }
  return "<none>";
}

TEST(PortHealthCollectorTest, StatesOnTheFixtureTree) {
  auto c = MakePortHealthCollector(kSys, health::Thresholds{});
  std::vector<prometheus::MetricFamily> fams;
  const auto s = ScrapeFlat(*c, &fams);
  testing::ExpectDeclared(MakePortHealthCollectorSpec(), fams);
  EXPECT_EQ(StateOf(s, "mlx5_0"), "ok");
  EXPECT_EQ(ReasonOf(s, "mlx5_0"), "");
  EXPECT_EQ(StateOf(s, "hfi1_0"), "ok");
  // irdma0: its port is DOWN (first seen: the drop window decides) on a
  // function trained below its maximum (degraded outranks pending).
  EXPECT_EQ(StateOf(s, "irdma0"), "degraded");
  EXPECT_EQ(ReasonOf(s, "irdma0"), "PCIe link trained below its maximum");
  // One-hot: four state series per port, one of them 1.
  int ones = 0, series = 0;
  for (const auto& x : s) {
    if (x.family == "rnic_port_health_state" &&
        x.labels.at("device") == "mlx5_0") {
      ++series;
      ones += x.value == 1;
    }
  }
  EXPECT_EQ(series, 4);
  EXPECT_EQ(ones, 1);
  EXPECT_EQ(ValueOf(s, "rnic_port_health_stuck_reads", {}), 0);
  EXPECT_EQ(ValueOf(s, "rnic_port_health_stuck_read_seconds", {}), 0);
}

TEST(PortHealthCollectorTest, DefaultsFromTheConfigSchema) {
  auto t = health::ParsePortHealthConfig(YAML::Node());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->drop_window, std::chrono::seconds(10));
  EXPECT_EQ(t->flap_count, 3);
  EXPECT_EQ(t->ber_max, 1e-12);
  EXPECT_EQ(t->read_deadline, std::chrono::seconds(1));
  auto bad = health::ParsePortHealthConfig(YAML::Load("{flap_count: 0}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("port_health.flap_count"),
            std::string::npos);
  auto rates = health::ParsePortHealthConfig(
      YAML::Load("{ber_max_by_rate: [{rate_gbps: 400, ber_max: 1e-13}], "
                 "drop_window: 3s}"));
  ASSERT_TRUE(rates.ok()) << rates.error().message;
  EXPECT_EQ(rates->BerBound(400), 1e-13);
  EXPECT_EQ(rates->BerBound(100), 1e-12);
  EXPECT_EQ(rates->drop_window, std::chrono::seconds(3));
}

// A writable copy of the fixture tree.
class PortHealthTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("port_health_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(kSys, dir_,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    state_ = fs::canonical(dir_ / "class/infiniband/mlx5_0/ports/1/state");
  }
  void TearDown() override {
    // A reader still blocked on a FIFO gets a writer and ends (nothing
    // written: a reader already gone would make it SIGPIPE).
    const int fd = ::open(state_.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    fs::remove_all(dir_);
  }
  // Rewritten in place: the collector holds the file open, as it holds a
  // sysfs attribute.
  void SetState(const char* text) { std::ofstream(state_) << text; }

  fs::path dir_;
  fs::path state_;
};

TEST_F(PortHealthTreeTest, DownAndBackWithinTheDropWindowIsAFlap) {
  health::Thresholds t;
  t.drop_window = hours(1);  // every down is back within it
  t.flap_count = 2;
  auto c = MakePortHealthCollector(dir_.string(), t);
  EXPECT_EQ(StateOf(ScrapeFlat(*c), "mlx5_0"), "ok");
  SetState("1: DOWN\n");
  EXPECT_EQ(StateOf(ScrapeFlat(*c), "mlx5_0"), "ok");  // pending
  SetState("4: ACTIVE\n");
  auto s = ScrapeFlat(*c);
  EXPECT_EQ(StateOf(s, "mlx5_0"), "ok");
  EXPECT_EQ(ValueOf(s, "rnic_port_health_link_flaps", {{"device", "mlx5_0"}}),
            1);
  SetState("1: DOWN\n");
  (void)ScrapeFlat(*c);
  SetState("4: ACTIVE\n");
  s = ScrapeFlat(*c);
  EXPECT_EQ(StateOf(s, "mlx5_0"), "degraded");
  EXPECT_EQ(ReasonOf(s, "mlx5_0"), "link flapping: 2 or more flaps within 10m");
}

TEST_F(PortHealthTreeTest, DownLongerThanTheDropWindowIsADrop) {
  health::Thresholds t;
  t.drop_window = milliseconds(0);  // any down outlasts it
  auto c = MakePortHealthCollector(dir_.string(), t);
  EXPECT_EQ(StateOf(ScrapeFlat(*c), "mlx5_0"), "ok");
  SetState("1: DOWN\n");
  const auto s = ScrapeFlat(*c);
  EXPECT_EQ(StateOf(s, "mlx5_0"), "failed");
  EXPECT_EQ(ReasonOf(s, "mlx5_0"),
            "link down longer than the drop window (0s)");
  EXPECT_EQ(ValueOf(s, "rnic_port_health_link_flaps", {{"device", "mlx5_0"}}),
            0);
}

TEST_F(PortHealthTreeTest, AHungReadMakesItsPortUnknownAndIsMeasured) {
  health::Thresholds t;
  t.read_deadline = milliseconds(300);
  auto c = MakePortHealthCollector(dir_.string(), t);
  fs::remove(state_);
  ASSERT_EQ(::mkfifo(state_.c_str(), 0600), 0);
  auto s = ScrapeFlat(*c);  // returns: the read is left hanging
  EXPECT_EQ(StateOf(s, "mlx5_0"), "unknown");
  EXPECT_EQ(ReasonOf(s, "mlx5_0"),
            "read of class/infiniband/mlx5_0/ports/1/state not answered "
            "within 300ms");
  EXPECT_EQ(StateOf(s, "hfi1_0"), "ok");  // other ports still judged
  s = ScrapeFlat(*c);
  EXPECT_EQ(StateOf(s, "mlx5_0"), "unknown");
  EXPECT_EQ(ValueOf(s, "rnic_port_health_stuck_reads", {}), 1);
  EXPECT_GT(*ValueOf(s, "rnic_port_health_stuck_read_seconds", {}), 0);
}

}  // namespace
}  // namespace rnic
