// The collectors on answers recorded from a real kernel (Soft-RoCE in the
// VM, tests/fixtures/netlink), checked against what iproute2's `rdma`
// printed at the same moment.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::FixtureDir;
using testing::LabelValues;
using testing::Sample;
using testing::SeriesOf;

std::vector<std::vector<std::string>> Lines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<std::vector<std::string>> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<std::string> words;
    for (std::string w; ss >> w;) words.push_back(w);
    if (!words.empty()) out.push_back(std::move(words));
  }
  return out;
}

// Value following `key` in a line of `rdma ... show` output.
std::string After(const std::vector<std::string>& w, const std::string& key) {
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == key) return w[i + 1];
  }
  return "";
}

std::shared_ptr<ReplayTransport> Load(const std::string& capture) {
  auto t = ReplayTransport::FromDirectory(FixtureDir(capture));
  EXPECT_TRUE(t.ok()) << capture;
  return std::make_shared<ReplayTransport>(std::move(t).value());
}

TransportOpener OpenerOf(std::shared_ptr<ReplayTransport> t) {
  return [t]() -> Result<std::shared_ptr<NetlinkTransport>> {
    return std::shared_ptr<NetlinkTransport>(t);
  };
}

ScrapeContext Ctx() {
  return ScrapeContext{std::chrono::steady_clock::now() +
                       std::chrono::hours(1)};
}

MetricSet ScrapeStat(const std::string& capture) {
  NetlinkStatCollector c(OpenerOf(Load(capture)),
                         {.procfs = FixtureDir(capture) + "/proc"});
  MetricSet out;
  Status st = c.Collect(Ctx(), out);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  return out;
}

MetricSet ScrapeRes(const std::string& capture) {
  NetlinkResourceCollector c(
      OpenerOf(Load(capture)),
      {.max_comms = 0, .procfs = FixtureDir(capture) + "/proc"});
  MetricSet out;
  Status st = c.Collect(Ctx(), out);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  return out;
}

class CaptureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CaptureTest, HwCountersEqualRdmaStatisticShow) {
  const MetricSet m = ScrapeStat(GetParam());
  int compared = 0;
  for (const auto& w : Lines(FixtureDir(GetParam()) + "/rdma-statistic.txt")) {
    ASSERT_EQ(w[0], "link");
    const std::string dev = w[1].substr(0, w[1].find('/'));
    const std::string port = w[1].substr(w[1].find('/') + 1);
    for (std::size_t i = 2; i + 1 < w.size(); i += 2) {
      auto v = Sample(m, "rnic_hw_" + w[i] + "_total",
                      {{"device", dev}, {"port", port}});
      ASSERT_TRUE(v.has_value()) << dev << "/" << port << " " << w[i];
      EXPECT_EQ(*v, std::stod(w[i + 1])) << dev << "/" << port << " " << w[i];
      ++compared;
    }
  }
  EXPECT_GE(compared, 15);  // rxe has 15 counters per port
}

TEST_P(CaptureTest, PortStateEqualsRdmaLinkShow) {
  const std::map<std::string, int> kState = {
      {"DOWN", 1}, {"INIT", 2}, {"ARMED", 3}, {"ACTIVE", 4}};
  const std::map<std::string, int> kPhys = {
      {"SLEEP", 1}, {"POLLING", 2}, {"DISABLED", 3}, {"LINK_UP", 5}};
  const std::string path = FixtureDir(GetParam()) + "/rdma-link.txt";
  if (!std::ifstream(path)) GTEST_SKIP() << "no rdma link output in capture";
  const MetricSet m = ScrapeStat(GetParam());
  const auto lines = Lines(path);
  EXPECT_EQ(SeriesOf(m, "rnic_port_state"), lines.size());
  for (const auto& w : lines) {
    const std::string dev = w[1].substr(0, w[1].find('/'));
    const std::string port = w[1].substr(w[1].find('/') + 1);
    EXPECT_EQ(Sample(m, "rnic_port_state", {{"device", dev}, {"port", port}}),
              kState.at(After(w, "state")));
    EXPECT_EQ(Sample(m, "rnic_port_physical_state",
                     {{"device", dev}, {"port", port}}),
              kPhys.at(After(w, "physical_state")));
  }
}

TEST_P(CaptureTest, ResourceSummaryEqualsRdmaResShow) {
  const MetricSet m = ScrapeRes(GetParam());
  int compared = 0;
  for (const auto& w : Lines(FixtureDir(GetParam()) + "/rdma-res.txt")) {
    // "0: rxe0: pd 2 cq 4 qp 6 cm_id 0 mr 4 ctx 1 srq 0"
    const std::string dev = w[1].substr(0, w[1].size() - 1);
    for (std::size_t i = 2; i + 1 < w.size(); i += 2) {
      EXPECT_EQ(Sample(m, "rnic_resource_objects",
                       {{"device", dev}, {"resource", w[i]}}),
                std::stod(w[i + 1]))
          << dev << " " << w[i];
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

// Per-process figures recomputed from `rdma res show cq|mr|pd|ctx|qp`.
TEST_P(CaptureTest, PerCommResourcesEqualRdmaResObjects) {
  const std::string dir = FixtureDir(GetParam());
  const MetricSet m = ScrapeRes(GetParam());
  struct Want {
    double cqs = 0, cqe = 0, cqe_max = 0, mrs = 0, bytes = 0, pds = 0, ctxs = 0,
           qps = 0;
  };
  std::map<std::pair<std::string, std::string>, Want> want;
  auto dev_of = [](const std::vector<std::string>& w) {
    std::string d = After(w, "dev");
    if (d.empty()) d = After(w, "link").substr(0, After(w, "link").find('/'));
    return d;
  };
  for (const auto& w : Lines(dir + "/rdma-res-cq.txt")) {
    Want& x = want[{dev_of(w), After(w, "comm")}];
    x.cqs += 1;
    x.cqe += std::stod(After(w, "cqe"));
    x.cqe_max = std::max(x.cqe_max, std::stod(After(w, "cqe")));
  }
  for (const auto& w : Lines(dir + "/rdma-res-mr.txt")) {
    Want& x = want[{dev_of(w), After(w, "comm")}];
    x.mrs += 1;
    x.bytes += std::stod(After(w, "mrlen"));
  }
  for (const auto& w : Lines(dir + "/rdma-res-pd.txt")) {
    want[{dev_of(w), After(w, "comm")}].pds += 1;
  }
  for (const auto& w : Lines(dir + "/rdma-res-ctx.txt")) {
    want[{dev_of(w), After(w, "comm")}].ctxs += 1;
  }
  for (const auto& w : Lines(dir + "/rdma-res-qp.txt")) {
    want[{dev_of(w), After(w, "comm")}].qps += 1;
  }
  ASSERT_FALSE(want.empty());
  for (const auto& [key, x] : want) {
    const Labels l{{"device", key.first}, {"comm", key.second}};
    const std::string where = key.first + " " + key.second;
    EXPECT_EQ(Sample(m, "rnic_resource_cqs", l), x.cqs) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_cq_entries", l), x.cqe) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_cq_max_entries", l), x.cqe_max) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_mrs", l), x.mrs) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_mr_pinned_bytes", l), x.bytes) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_pds", l), x.pds) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_contexts", l), x.ctxs) << where;
    EXPECT_EQ(Sample(m, "rnic_resource_comm_qps", l), x.qps) << where;
  }
  EXPECT_EQ(SeriesOf(m, "rnic_resource_cqs"), want.size());
}

TEST_P(CaptureTest, QpsByTypeAndStateEqualRdmaResShowQp) {
  const MetricSet m = ScrapeRes(GetParam());
  std::map<std::vector<std::string>, double> want;
  for (const auto& w : Lines(FixtureDir(GetParam()) + "/rdma-res-qp.txt")) {
    const std::string link = After(w, "link");  // "rxe0/1" or "rxe0/-"
    std::string port = link.substr(link.find('/') + 1);
    if (port == "-") port = "0";
    want[{link.substr(0, link.find('/')), port, After(w, "type"),
          After(w, "state")}] += 1;
  }
  EXPECT_EQ(SeriesOf(m, "rnic_resource_qps"), want.size());
  for (const auto& [k, n] : want) {
    EXPECT_EQ(Sample(m, "rnic_resource_qps",
                     {{"device", k[0]},
                      {"port", k[1]},
                      {"qp_type", k[2]},
                      {"state", k[3]}}),
              n);
  }
}

TEST_P(CaptureTest, FewRequestsPerPort) {
  auto t = Load(GetParam());
  NetlinkStatCollector c(OpenerOf(t),
                         {.procfs = FixtureDir(GetParam()) + "/proc"});
  MetricSet out;
  ASSERT_TRUE(c.Collect(Ctx(), out).ok());
  const std::size_t ports = SeriesOf(out, "rnic_port_state");
  const std::size_t devices = LabelValues(out, "device").size();
  std::size_t requests = 0;
  for (const auto& [key, n] : t->calls()) {
    EXPECT_EQ(n, 1) << key << " asked twice in one scrape";
    requests += n;
  }
  // GET + PORT_GET per device + STAT_GET, STAT_GET_STATUS, QP counters per port
  EXPECT_EQ(requests, 1 + devices + 3 * ports);

  // The next scrape leaves out STAT_GET_STATUS (the STAT_GET answers have
  // the same counters, so no optional counter was turned on or off) and the
  // QP-bound counter dumps that came back empty (asked again after 30 s).
  std::map<std::string, int> before = t->calls();
  MetricSet again;
  ASSERT_TRUE(c.Collect(Ctx(), again).ok());
  std::size_t second = 0;
  for (const auto& [key, n] : t->calls()) {
    const int delta = n - before[key];
    if (key.starts_with("STAT_GET_STATUS") ||
        key.find("_res19") != std::string::npos) {
      EXPECT_EQ(delta, 0) << key;
    }
    second += static_cast<std::size_t>(delta);
  }
  EXPECT_EQ(second, 1 + devices + ports);
  // ... and still exports the optional counters' state.
  EXPECT_EQ(SeriesOf(again, "rnic_optional_counter_info"),
            SeriesOf(out, "rnic_optional_counter_info"));
}

INSTANTIATE_TEST_SUITE_P(Rxe, CaptureTest,
                         ::testing::Values("rxe-idle", "rxe-traffic",
                                           "rxe-live", "rxe-removed",
                                           "rxe-many"),
                         [](const auto& p) {
                           std::string n = p.param;
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

std::map<std::string, double> Holder(const std::string& capture = "rxe-live") {
  std::map<std::string, double> h;
  std::ifstream in(FixtureDir(capture) + "/holder.txt");
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq == std::string::npos || line.rfind("holder", 0) == 0 ||
        line.rfind("device", 0) == 0)
      continue;
    h[line.substr(0, eq)] = std::stod(line.substr(eq + 1));
  }
  return h;
}

// The test program's known resources move the metrics by exactly that much.
TEST(CaptureDelta, ResourceHolderMovesMetricsByItsOwnCounts) {
  const MetricSet idle = ScrapeRes("rxe-idle");
  const MetricSet live = ScrapeRes("rxe-live");
  const auto h = Holder();
  ASSERT_EQ(h.at("qps"), 5);
  const Labels holder{{"device", "rxe0"}, {"comm", "rnic_res_holder"}};
  EXPECT_FALSE(Sample(idle, "rnic_resource_cqs", holder).has_value());
  EXPECT_EQ(Sample(live, "rnic_resource_comm_qps", holder), h.at("qps"));
  EXPECT_EQ(Sample(live, "rnic_resource_cqs", holder), h.at("cqs"));
  EXPECT_EQ(Sample(live, "rnic_resource_cq_entries", holder),
            h.at("cqe_total"));
  EXPECT_EQ(Sample(live, "rnic_resource_cq_max_entries", holder),
            h.at("cqe_max"));
  EXPECT_EQ(Sample(live, "rnic_resource_mrs", holder), h.at("mrs"));
  EXPECT_EQ(Sample(live, "rnic_resource_mr_pinned_bytes", holder),
            h.at("mr_bytes"));
  EXPECT_EQ(Sample(live, "rnic_resource_pds", holder), h.at("pds"));
  EXPECT_EQ(Sample(live, "rnic_resource_contexts", holder), h.at("ctxs"));
  const std::map<std::string, std::string> kSummary = {{"qp", "qps"},
                                                       {"cq", "cqs"},
                                                       {"mr", "mrs"},
                                                       {"pd", "pds"},
                                                       {"ctx", "ctxs"}};
  for (const auto& [res, key] : kSummary) {
    const Labels l{{"device", "rxe0"}, {"resource", res}};
    EXPECT_EQ(*Sample(live, "rnic_resource_objects", l) -
                  *Sample(idle, "rnic_resource_objects", l),
              h.at(key))
        << res;
  }
  // Not yet connected: port "0", RESET.
  EXPECT_EQ(Sample(live, "rnic_resource_qps",
                   {{"device", "rxe0"},
                    {"port", "0"},
                    {"qp_type", "RC"},
                    {"state", "RESET"}}),
            h.at("qps"));
}

// A dump spread over many datagrams (1000 QPs) is aggregated completely.
TEST(CaptureDelta, ThousandQpDumpCountsEveryObject) {
  const MetricSet m = ScrapeRes("rxe-many");
  const auto h = Holder("rxe-many");
  const Labels holder{{"device", "rxe0"}, {"comm", "rnic_res_holder"}};
  EXPECT_EQ(Sample(m, "rnic_resource_comm_qps", holder), h.at("qps"));
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", holder), h.at("cqs"));
  EXPECT_EQ(Sample(m, "rnic_resource_cq_entries", holder), h.at("cqe_total"));
  EXPECT_EQ(Sample(m, "rnic_resource_mrs", holder), h.at("mrs"));
  EXPECT_EQ(Sample(m, "rnic_resource_mr_pinned_bytes", holder),
            h.at("mr_bytes"));
  auto t = Load("rxe-many");
  std::size_t messages = 0;
  bool finished = false;
  ASSERT_TRUE(WalkMessages(
                  t->replies().at("RES_QP_GET_dump_dev0"), 0,
                  [&](const nlmsghdr&) {
                    ++messages;
                    return Status::Ok();
                  },
                  &finished)
                  .ok());
  EXPECT_TRUE(finished);
  EXPECT_GT(messages, 1u) << "the capture should span several messages";
}

// A device deleted between scrapes leaves no series behind.
TEST(CaptureHotplug, RemovedDeviceLeavesNoSeries) {
  auto t = Load("rxe-idle");
  NetlinkStatCollector stat(OpenerOf(t), {.procfs = "/nonexistent"});
  NetlinkResourceCollector res(OpenerOf(t), {.procfs = "/nonexistent"});
  MetricSet before;
  ASSERT_TRUE(stat.Collect(Ctx(), before).ok());
  ASSERT_TRUE(res.Collect(Ctx(), before).ok());
  EXPECT_EQ(LabelValues(before, "device"),
            (std::vector<std::string>{"rxe0", "rxe1"}));

  auto removed = Load("rxe-removed");
  *t = *removed;  // same transport object, the kernel now has only rxe0
  MetricSet after;
  ASSERT_TRUE(stat.Collect(Ctx(), after).ok());
  ASSERT_TRUE(res.Collect(Ctx(), after).ok());
  EXPECT_EQ(LabelValues(after, "device"), (std::vector<std::string>{"rxe0"}));
}

// The factory-time probe that decides whether sysfs leaves port state and
// hw counters to netlink.
TEST(CaptureProbe, RealKernelAnswersEnableNetlinkFacts) {
  NetlinkStatCollector c(OpenerOf(Load("rxe-idle")), {});
  const auto p = c.ProbeKernel();
  EXPECT_TRUE(p.port_state);
  EXPECT_TRUE(p.hw_counters);

  auto broken = std::make_shared<ReplayTransport>();  // every request fails
  NetlinkStatCollector d(OpenerOf(broken), {});
  const auto q = d.ProbeKernel();
  EXPECT_FALSE(q.port_state);
  EXPECT_FALSE(q.hw_counters);
}

}  // namespace
}  // namespace rnic::nl
