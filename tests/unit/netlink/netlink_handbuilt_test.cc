// The collectors on hand-built answers for what rxe cannot show: the mlx5
// counter set (with 32-bit wrap), optional counters (STAT_GET_STATUS),
// counters bound to QPs, permission and unsupported-command errors, and the
// per-command cap.
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <tuple>

#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/nl/kernel_transport.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/family_check.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::Done;
using testing::ErrorMsg;
using testing::Join;
using testing::LabelValues;
using testing::Msg;
using testing::Sample;
using testing::SeriesOf;

ScrapeContext Ctx() {
  return ScrapeContext{std::chrono::steady_clock::now() +
                       std::chrono::hours(1)};
}

TransportOpener OpenerOf(std::shared_ptr<ReplayTransport> t) {
  return [t]() -> Result<std::shared_ptr<NetlinkTransport>> {
    return std::shared_ptr<NetlinkTransport>(t);
  };
}

// Captures log lines for the duration of a test.
class LogCapture {
 public:
  LogCapture()
      : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100)),
        saved_(spdlog::default_logger()) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("t", sink_));
  }
  ~LogCapture() { spdlog::set_default_logger(saved_); }
  std::size_t Count(const std::string& needle) const {
    std::size_t n = 0;
    for (const auto& l : sink_->last_formatted()) {
      if (l.find(needle) != std::string::npos) ++n;
    }
    return n;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> saved_;
};

// One mlx5 RoCE device "mlx5_0" (index 2) with one port, netdev eth2.
std::shared_ptr<ReplayTransport> Mlx5Kernel() {
  auto t = std::make_shared<ReplayTransport>();
  Msg dev(kCmdGet);
  dev.U32(kAttrDevIndex, 2)
      .Str(kAttrDevName, "mlx5_0")
      .U32(kAttrPortIndex, 1)
      .Str(kAttrFwVersion, "22.39.1002")
      .U8(kAttrDevNodeType, 1)
      .Str(kAttrDevProtocol, "roce");
  t->Set("GET_dump", Join({dev.Bytes(), Done()}));
  t->Set("GET_dev2", Join({dev.Bytes(), ErrorMsg(0)}));
  // One port: asked with a doit, answered by its one message.
  Msg port(kCmdPortGet, 0);
  port.U32(kAttrDevIndex, 2)
      .Str(kAttrDevName, "mlx5_0")
      .U32(kAttrPortIndex, 1)
      .U8(kAttrPortState, 4)
      .U8(kAttrPortPhysState, 5)
      .U32(kAttrNdevIndex, 5)
      .Str(kAttrNdevName, "eth2");
  t->Set("PORT_GET_dev2_port1", port.Bytes());
  t->Set("STAT_GET_dump_dev2_port1_res19", Done());
  t->Set("STAT_GET_STATUS_dev2_port1", ErrorMsg(EOPNOTSUPP));
  return t;
}

std::vector<std::uint8_t> Mlx5Stats(std::uint64_t out_of_buffer,
                                    std::uint64_t np_cnp_sent) {
  Msg m(kCmdStatGet, 0);
  m.U32(kAttrDevIndex, 2).Str(kAttrDevName, "mlx5_0").U32(kAttrPortIndex, 1);
  m.Begin(kAttrStatHwcounters)
      .Counter("rx_write_requests", 1200)
      .Counter("out_of_buffer", out_of_buffer)
      .Counter("out_of_sequence", 3)
      .Counter("local_ack_timeout_err", 2)
      .Counter("rnr_nak_retry_err", 0)
      .Counter("np_cnp_sent", np_cnp_sent)
      .Counter("np_ecn_marked_roce_packets", 77)
      .Counter("rp_cnp_handled", 70)
      .Counter("rx_icrc_encapsulated", 0)
      .Counter("roce_adp_retrans", 1)
      .Counter("vendor_future_counter", 5)  // unknown to our table
      .End();
  m.U64(kAttrKnownEnd + 40, 1);  // an attribute from a future kernel
  // A GET doit asked without NLM_F_ACK: its one message is the answer.
  return m.Bytes();
}

TEST(NetlinkMlx5, EveryCounterExportedUnderItsKernelName) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(10, 20));
  NetlinkStatCollector c(OpenerOf(t), {});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  const Labels l{{"device", "mlx5_0"}, {"port", "1"}};
  EXPECT_EQ(Sample(m, "rnic_hw_rx_write_requests_total", l), 1200);
  EXPECT_EQ(Sample(m, "rnic_hw_np_ecn_marked_roce_packets_total", l), 77);
  EXPECT_EQ(Sample(m, "rnic_hw_vendor_future_counter_total", l), 5);
  EXPECT_EQ(Sample(m, "rnic_port_state", l), 4);
  EXPECT_EQ(Sample(m, "rnic_port_physical_state", l), 5);
  int hw_families = 0;
  for (const auto& f : m.families()) {
    if (f.name.rfind("rnic_hw_", 0) == 0) {
      ++hw_families;
      EXPECT_EQ(f.type, prometheus::MetricType::Counter) << f.name;
      EXPECT_FALSE(f.help.empty()) << f.name;
    }
  }
  EXPECT_EQ(hw_families, 11);
}

TEST(NetlinkHwCounters, LevelsAmongCountersAreGauges) {
  auto t = Mlx5Kernel();
  Msg m(kCmdStatGet, 0);
  m.U32(kAttrDevIndex, 2).Str(kAttrDevName, "mlx5_0").U32(kAttrPortIndex, 1);
  m.Begin(kAttrStatHwcounters)
      .Counter("active_qps", 12)
      .Counter("tx_pkts", 5)
      .End();
  t->Set("STAT_GET_dev2_port1", Join({m.Bytes(), ErrorMsg(0)}));
  NetlinkStatCollector c(OpenerOf(t), {});
  MetricSet out;
  ASSERT_TRUE(c.Collect(Ctx(), out).ok());
  for (const auto& f : out.families()) {
    if (f.name == "rnic_hw_active_qps") {
      EXPECT_EQ(f.type, prometheus::MetricType::Gauge);
    }
  }
  EXPECT_EQ(Sample(out, "rnic_hw_active_qps", {{"device", "mlx5_0"}}), 12);
  EXPECT_EQ(Sample(out, "rnic_hw_tx_pkts_total", {{"device", "mlx5_0"}}), 5);
}

TEST(NetlinkMlx5, ThirtyTwoBitCountersWrapIntoSixtyFourBits) {
  auto t = Mlx5Kernel();
  NetlinkStatCollector c(OpenerOf(t), {});
  const Labels l{{"device", "mlx5_0"}, {"port", "1"}};
  const std::uint64_t near = (std::uint64_t{1} << 32) - 6;
  // out_of_buffer is a 32-bit Q counter: 2^32-6 -> 4 means +10.
  // np_cnp_sent is 64-bit: a smaller value is a reset, passed through.
  const std::pair<std::uint64_t, std::uint64_t> readings[] = {
      {near, 1000}, {4, 1500}, {20, 7}};
  const double want_oob[] = {static_cast<double>(near),
                             static_cast<double>(near) + 10,
                             static_cast<double>(near) + 26};
  const double want_cnp[] = {1000, 1500, 7};
  for (int i = 0; i < 3; ++i) {
    t->Set("STAT_GET_dev2_port1",
           Mlx5Stats(readings[i].first, readings[i].second));
    MetricSet m;
    ASSERT_TRUE(c.Collect(Ctx(), m).ok());
    EXPECT_EQ(Sample(m, "rnic_hw_out_of_buffer_total", l), want_oob[i]) << i;
    EXPECT_EQ(Sample(m, "rnic_hw_np_cnp_sent_total", l), want_cnp[i]) << i;
  }
}

TEST(NetlinkMlx5, MissingStatusCommandIsDisabledWithOneLogLine) {
  LogCapture logs;
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1, 1));
  NetlinkStatCollector c(OpenerOf(t), {});
  for (int i = 0; i < 3; ++i) {
    MetricSet m;
    ASSERT_TRUE(c.Collect(Ctx(), m).ok());
    EXPECT_EQ(SeriesOf(m, "rnic_optional_counter_info"), 0u);
    EXPECT_EQ(Sample(m, "rnic_hw_out_of_buffer_total",
                     {{"device", "mlx5_0"}, {"port", "1"}}),
              1);
  }
  EXPECT_EQ(t->calls().at("STAT_GET_STATUS_dev2_port1"), 1);
  EXPECT_EQ(logs.Count("part=status device=mlx5_0"), 1u);
}

TEST(NetlinkOptional, StatusReportsSupportedAndEnabledOptionalCounters) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1, 1));
  Msg s(kCmdStatGetStatus, 0);
  s.U32(kAttrDevIndex, 2).Str(kAttrDevName, "mlx5_0").U32(kAttrPortIndex, 1);
  s.Begin(kAttrStatHwcounters);
  // Default counters carry no DYNAMIC attribute: not optional.
  s.Begin(kAttrStatHwcounterEntry)
      .Str(kAttrStatHwcounterEntryName, "out_of_buffer")
      .U32(kAttrStatHwcounterIndex, 0)
      .End();
  s.Begin(kAttrStatHwcounterEntry)
      .Str(kAttrStatHwcounterEntryName, "cc_rx_ce_pkts")
      .U32(kAttrStatHwcounterIndex, 40)
      .U8(kAttrStatHwcounterDynamic, 1)
      .End();
  s.Begin(kAttrStatHwcounterEntry)
      .Str(kAttrStatHwcounterEntryName, "rdma_tx_bytes")
      .U32(kAttrStatHwcounterIndex, 44)
      .U8(kAttrStatHwcounterDynamic, 0)
      .End();
  s.End();
  t->Set("STAT_GET_STATUS_dev2_port1", Join({s.Bytes(), ErrorMsg(0)}));
  NetlinkStatCollector c(OpenerOf(t), {});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  EXPECT_EQ(SeriesOf(m, "rnic_optional_counter_info"), 2u);
  EXPECT_EQ(Sample(m, "rnic_optional_counter_info",
                   {{"device", "mlx5_0"},
                    {"counter", "cc_rx_ce_pkts"},
                    {"enabled", "1"}}),
            1);
  EXPECT_EQ(Sample(m, "rnic_optional_counter_info",
                   {{"counter", "rdma_tx_bytes"}, {"enabled", "0"}}),
            1);
  // Read-only: nothing but GET requests went out.
  for (const auto& [key, n] : t->calls()) {
    EXPECT_EQ(key.find("STAT_SET"), std::string::npos) << key;
  }
}

// STAT_GET dump with STAT_RES=QP, as the kernel sends it in auto mode.
std::vector<std::uint8_t> BoundCounters() {
  auto counter = [](Msg& m, std::uint32_t id, std::optional<std::uint32_t> pid,
                    const char* kern, std::vector<std::uint32_t> qpns,
                    std::uint64_t oob, std::uint64_t retrans) {
    m.Begin(kAttrStatCounterEntry)
        .U32(kAttrPortIndex, 1)
        .U32(kAttrStatCounterId, id)
        .U8(kAttrResType, 2);
    if (pid) m.U32(kAttrResPid, *pid);
    if (kern) m.Str(kAttrResKernName, kern);
    m.Begin(kAttrStatHwcounters)
        .Counter("out_of_buffer", oob)
        .Counter("roce_adp_retrans", retrans)
        .End();
    m.Begin(kAttrResQp);
    for (auto q : qpns) m.Begin(kAttrResQpEntry).U32(kAttrResLqpn, q).End();
    m.End();
    m.End();
  };
  Msg a(kCmdStatGet);
  a.U32(kAttrDevIndex, 2).Str(kAttrDevName, "mlx5_0").Begin(kAttrStatCounter);
  counter(a, 1, 100, nullptr, {10, 11}, 5, 1);
  counter(a, 2, 101, nullptr, {12}, 7, 2);  // another process, same comm
  a.End();
  Msg b(kCmdStatGet);  // the dump's second message
  b.U32(kAttrDevIndex, 2).Str(kAttrDevName, "mlx5_0").Begin(kAttrStatCounter);
  counter(b, 3, 200, nullptr, {20, 21, 22}, 100, 0);
  counter(b, 4, std::nullopt, "ib_ipoib", {30}, 1, 0);
  counter(b, 5, 102, nullptr, {23}, 40, 0);  // a thread of process 100
  b.End();
  return Join({a.Bytes(), b.Bytes(), Done()});
}

std::string ProcWithComms() {
  // A procfs lookalike: pids 100 and 101 run "nccl", 200 runs "ib_write_bw".
  // Per process: ctest runs these tests in parallel processes, and a file
  // being rewritten by one would read empty in another.
  const std::string dir =
      ::testing::TempDir() + "/rnic_nl_proc_" + std::to_string(::getpid());
  for (auto [pid, comm] : {std::pair{100, "nccl"}, std::pair{101, "nccl"},
                           std::pair{200, "ib_write_bw"}}) {
    std::filesystem::create_directories(dir + "/" + std::to_string(pid));
    std::ofstream(dir + "/" + std::to_string(pid) + "/comm") << comm << "\n";
  }
  // Thread 102 of process 100, named by the application; thread 300 of a
  // process that has exited meanwhile.
  for (auto [tid, tgid, comm] :
       {std::tuple{102, 100, "NCCL proxy"}, std::tuple{300, 299, "worker"}}) {
    const std::string t = dir + "/" + std::to_string(tid);
    std::filesystem::create_directories(t);
    std::ofstream(t + "/comm") << comm << "\n";
    std::ofstream(t + "/status")
        << "Name:\t" << comm << "\nUmask:\t0022\nState:\tS (sleeping)\n"
        << "Tgid:\t" << tgid << "\nNgid:\t0\nPid:\t" << tid << "\n";
  }
  return dir;
}

TEST(NetlinkBound, QpCountersAreSummedByCommand) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1000, 1));
  t->Set("STAT_GET_dump_dev2_port1_res19", BoundCounters());
  NetlinkStatCollector c(OpenerOf(t), {.procfs = ProcWithComms()});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  const Labels nccl{{"device", "mlx5_0"}, {"port", "1"}, {"comm", "nccl"}};
  // pids 100 and 101 and thread 102 ("NCCL proxy") of process 100.
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total", nccl), 52);
  EXPECT_EQ(Sample(m, "rnic_qp_counter_roce_adp_retrans_total", nccl), 3);
  EXPECT_EQ(Sample(m, "rnic_qp_counter_bound_qps", nccl), 4);
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total",
                   {{"comm", "ib_write_bw"}}),
            100);
  EXPECT_EQ(Sample(m, "rnic_qp_counter_bound_qps", {{"comm", "[ib_ipoib]"}}),
            1);
  EXPECT_EQ(SeriesOf(m, "rnic_qp_counter_out_of_buffer_total"), 3u);
  // Never a pid or QP number label unless asked for.
  EXPECT_TRUE(LabelValues(m, "pid").empty());
  EXPECT_TRUE(LabelValues(m, "lqpn").empty());
  // Port totals are exported as the kernel gives them, not re-added.
  EXPECT_EQ(Sample(m, "rnic_hw_out_of_buffer_total",
                   {{"device", "mlx5_0"}, {"port", "1"}}),
            1000);
  // A port with bound counters is dumped at every scrape.
  const int dumps = t->calls().at("STAT_GET_dump_dev2_port1_res19");
  MetricSet again;
  ASSERT_TRUE(c.Collect(Ctx(), again).ok());
  EXPECT_EQ(t->calls().at("STAT_GET_dump_dev2_port1_res19"), dumps + 1);
  EXPECT_EQ(Sample(again, "rnic_qp_counter_bound_qps", nccl), 4);
}

TEST(NetlinkBound, PodLabelsAreOptIn) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1000, 1));
  t->Set("STAT_GET_dump_dev2_port1_res19", BoundCounters());
  const std::string proc = ProcWithComms();
  const std::string id_a(64, 'a');
  const std::string id_b(64, 'b');
  // Process 100 in pod A (systemd driver), 101 in pod B (cgroupfs driver).
  std::ofstream(proc + "/100/cgroup")
      << "0::/kubepods.slice/kubepods-burstable.slice/"
         "kubepods-burstable-pod2c48913c_b29f_11e7_9350_020968147796.slice/"
         "cri-containerd-"
      << id_a << ".scope\n";
  std::ofstream(proc + "/101/cgroup")
      << "0::/kubepods/besteffort/pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/"
      << id_b << "\n";
  NetlinkStatCollector c(OpenerOf(t),
                         {.qp_counters_pod_labels = true, .procfs = proc});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  // Thread 102's counter belongs to process 100's pod.
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total",
                   {{"comm", "nccl"},
                    {"pod_uid", "2c48913c-b29f-11e7-9350-020968147796"},
                    {"container_id", id_a}}),
            45);
  EXPECT_EQ(Sample(m, "rnic_qp_counter_bound_qps",
                   {{"comm", "nccl"},
                    {"pod_uid", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},
                    {"container_id", id_b}}),
            1);
  EXPECT_EQ(SeriesOf(m, "rnic_qp_counter_out_of_buffer_total"), 4u);
  // ib_write_bw (no cgroup file) and the kernel's IPoIB: no pod labels.
  EXPECT_EQ(LabelValues(m, "pod_uid").size(), 2u);
  EXPECT_TRUE(LabelValues(m, "pid").empty());
  rnic::testing::ExpectDeclared(MakeNetlinkStatCollectorSpec(), m.families());
  std::filesystem::remove(proc + "/100/cgroup");
  std::filesystem::remove(proc + "/101/cgroup");
}

TEST(NetlinkBound, SlurmJobLabelIsOptIn) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1000, 1));
  t->Set("STAT_GET_dump_dev2_port1_res19", BoundCounters());
  const std::string proc = ProcWithComms();
  // Process 100 a rank of job 4242 (cgroup v2), 101 of job 77 (cgroup v1).
  std::ofstream(proc + "/100/cgroup")
      << "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n";
  std::ofstream(proc + "/101/cgroup")
      << "9:memory:/slurm/uid_1000/job_77/step_0/task_0\n";
  NetlinkStatCollector c(OpenerOf(t),
                         {.qp_counters_slurm_labels = true, .procfs = proc});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  // Thread 102's counter belongs to process 100's job.
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total",
                   {{"comm", "nccl"}, {"slurm_job_id", "4242"}}),
            45);
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total",
                   {{"comm", "nccl"}, {"slurm_job_id", "77"}}),
            7);
  EXPECT_EQ(LabelValues(m, "slurm_job_id").size(), 2u);
  EXPECT_TRUE(LabelValues(m, "pod_uid").empty());
  rnic::testing::ExpectDeclared(MakeNetlinkStatCollectorSpec(), m.families());
  // Without the option the same processes carry no job.
  NetlinkStatCollector plain(OpenerOf(t), {.procfs = proc});
  MetricSet p;
  ASSERT_TRUE(plain.Collect(Ctx(), p).ok());
  EXPECT_TRUE(LabelValues(p, "slurm_job_id").empty());
  std::filesystem::remove(proc + "/100/cgroup");
  std::filesystem::remove(proc + "/101/cgroup");
}

TEST(NetlinkBound, PidLabelIsOptIn) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1000, 1));
  t->Set("STAT_GET_dump_dev2_port1_res19", BoundCounters());
  NetlinkStatCollector c(
      OpenerOf(t), {.qp_counters_by_pid = true, .procfs = ProcWithComms()});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total",
                   {{"comm", "nccl"}, {"pid", "101"}}),
            7);
  // The thread's counter is its process's: pid 100, not 102.
  EXPECT_EQ(Sample(m, "rnic_qp_counter_out_of_buffer_total",
                   {{"comm", "nccl"}, {"pid", "100"}}),
            45);
  EXPECT_EQ(SeriesOf(m, "rnic_qp_counter_out_of_buffer_total"), 4u);
}

TEST(NetlinkErrors, PermissionDeniedFailsTheCollectorAndLogsOnce) {
  LogCapture logs;
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", ErrorMsg(EPERM));
  NetlinkStatCollector c(OpenerOf(t), {});
  for (int i = 0; i < 3; ++i) {
    MetricSet m;
    Status st = c.Collect(Ctx(), m);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errno_value, EPERM);
  }
  EXPECT_EQ(logs.Count("Operation not permitted"), 1u);
  EXPECT_EQ(t->calls().at("STAT_GET_dev2_port1"), 3);  // not disabled
}

TEST(NetlinkErrors, DeviceVanishingMidScrapeIsNotADisabledCommand) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", ErrorMsg(EINVAL));  // device gone ...
  t->Set("GET_dev2", ErrorMsg(EINVAL));             // ... as GET confirms
  NetlinkStatCollector c(OpenerOf(t), {});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(3, 3));
  MetricSet m2;
  ASSERT_TRUE(c.Collect(Ctx(), m2).ok());
  EXPECT_EQ(Sample(m2, "rnic_hw_out_of_buffer_total", {{"device", "mlx5_0"}}),
            3);
}

TEST(NetlinkHotplug, RenamedDeviceLeavesNoSeriesUnderItsOldName) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1, 1));
  NetlinkStatCollector c(OpenerOf(t), {});
  MetricSet before;
  ASSERT_TRUE(c.Collect(Ctx(), before).ok());
  EXPECT_EQ(LabelValues(before, "device"), std::vector<std::string>{"mlx5_0"});
  // systemd/rdma-core renames mlx5_0 (same index) to its stable name.
  Msg dev(kCmdGet);
  dev.U32(kAttrDevIndex, 2)
      .Str(kAttrDevName, "rocep1s0f0")
      .U32(kAttrPortIndex, 1);
  t->Set("GET_dump", Join({dev.Bytes(), Done()}));
  MetricSet after;
  ASSERT_TRUE(c.Collect(Ctx(), after).ok());
  EXPECT_EQ(LabelValues(after, "device"),
            std::vector<std::string>{"rocep1s0f0"});
  EXPECT_EQ(Sample(after, "rnic_hw_out_of_buffer_total",
                   {{"device", "rocep1s0f0"}, {"port", "1"}}),
            1);
}

TEST(NetlinkFactory, HostWithoutRdmaNetlinkLeavesSysfsInCharge) {
  if (KernelTransport::Open().ok())
    GTEST_SKIP() << "this host has RDMA netlink";
  auto shared = std::make_shared<SharedFacts>();
  CollectorArgs args;
  args.shared = shared;
  auto spec = MakeNetlinkStatCollectorSpec();
  args.options = spec.ParseOptions().value();
  auto c = spec.factory(args);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_FALSE(shared->netlink_port_state);
  EXPECT_FALSE(shared->netlink_hw_counters);
  MetricSet m;
  EXPECT_TRUE((*c)->Collect(Ctx(), m).ok());
  EXPECT_TRUE(m.empty());
}

TEST(NetlinkComm, OwnersAreNamedByProcess) {
  CommResolver r(ProcWithComms());
  EXPECT_EQ(r.Resolve(Owner{100, {}}), "nccl");
  // The kernel reports the creating thread; the process is what counts.
  EXPECT_EQ(r.TgidOf(102), 100u);
  EXPECT_EQ(r.Resolve(Owner{102, {}}), "nccl");
  // Its process is gone: the thread's own name beats "[unknown]".
  EXPECT_EQ(r.Resolve(Owner{300, {}}), "worker");
  EXPECT_FALSE(r.TgidOf(100).has_value());  // no status file here
  EXPECT_EQ(r.Resolve(Owner{std::nullopt, "ib_core"}), "[ib_core]");
  EXPECT_EQ(r.Resolve(Owner{424242, {}}), "[unknown]");  // gone or hidden
}

TEST(NetlinkErrors, NoRdmaNetlinkIsAnEmptySuccessfulScrape) {
  TransportOpener none = []() -> Result<std::shared_ptr<NetlinkTransport>> {
    return Error{"connect NETLINK_RDMA", EPROTONOSUPPORT};
  };
  NetlinkStatCollector s(none, {});
  NetlinkResourceCollector r(none, {});
  MetricSet m;
  EXPECT_TRUE(s.Collect(Ctx(), m).ok());
  EXPECT_TRUE(r.Collect(Ctx(), m).ok());
  EXPECT_TRUE(m.empty());
}

TEST(NetlinkErrors, GarbageAnswerFailsTheScrapeWithoutCrashing) {
  auto t = Mlx5Kernel();
  auto bytes = Mlx5Stats(1, 1);
  bytes.resize(bytes.size() - 30);  // truncated mid-attribute
  t->Set("STAT_GET_dev2_port1", bytes);
  NetlinkStatCollector c(OpenerOf(t), {});
  MetricSet m;
  Status st = c.Collect(Ctx(), m);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(SeriesOf(m, "rnic_hw_out_of_buffer_total"), 0u);
}

// Resource dumps: a CQ table of many processes, capped to N + "[other]".
std::shared_ptr<ReplayTransport> ResKernel(int processes) {
  auto t = std::make_shared<ReplayTransport>();
  Msg sum(kCmdResGet);
  sum.U32(kAttrDevIndex, 0)
      .Str(kAttrDevName, "mlx5_0")
      .Begin(kAttrResSummary)
      .Begin(kAttrResSummaryEntry)
      .Str(kAttrResSummaryEntryName, "cq")
      .U64(kAttrResSummaryEntryCurr, 1)
      .End()
      .End();
  t->Set("RES_GET_dump", Join({sum.Bytes(), Done()}));
  Msg dev(kCmdGet, 0);
  dev.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0");
  t->Set("GET_dev0", Join({dev.Bytes(), ErrorMsg(0)}));
  Msg cq(kCmdResCqGet);
  cq.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0").Begin(kAttrResCq);
  // Process i holds i+1 CQs of depth 64*(i+1).
  for (int i = 0; i < processes; ++i) {
    for (int k = 0; k <= i; ++k) {
      cq.Begin(kAttrResCqEntry)
          .U32(kAttrResCqn, i * 100 + k)
          .U32(kAttrResCqe, 64 * (i + 1))
          .U32(kAttrResPid, 1000 + i)
          .U8(kAttrKnownEnd + 3, 9)  // unknown attribute inside an entry
          .End();
    }
  }
  cq.End();
  t->Set("RES_CQ_GET_dump_dev0", Join({cq.Bytes(), Done()}));
  for (const char* k : {"RES_QP_GET_dump_dev0", "RES_MR_GET_dump_dev0",
                        "RES_PD_GET_dump_dev0", "RES_CTX_GET_dump_dev0"}) {
    t->Set(k, Done());
  }
  return t;
}

std::string ProcWithWorkers(int n) {
  const std::string dir = ::testing::TempDir() + "/rnic_nl_proc_workers_" +
                          std::to_string(::getpid()) + "_" + std::to_string(n);
  for (int i = 0; i < n; ++i) {
    std::filesystem::create_directories(dir + "/" + std::to_string(1000 + i));
    std::ofstream(dir + "/" + std::to_string(1000 + i) + "/comm")
        << "worker" << i << "\n";
  }
  return dir;
}

TEST(NetlinkResourceCap, TopCommandsKeptRestFoldedIntoOther) {
  auto t = ResKernel(6);
  NetlinkResourceCollector c(OpenerOf(t),
                             {.max_comms = 2, .procfs = ProcWithWorkers(6)});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  EXPECT_EQ(SeriesOf(m, "rnic_resource_cqs"), 3u);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "worker5"}}), 6);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "worker4"}}), 5);
  // worker0..3 hold 1+2+3+4 CQs, deepest 4*64.
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "[other]"}}), 10);
  EXPECT_EQ(Sample(m, "rnic_resource_cq_max_entries", {{"comm", "[other]"}}),
            256);
  EXPECT_EQ(Sample(m, "rnic_resource_cq_entries", {{"comm", "[other]"}}),
            64 * 1 + 128 * 2 + 192 * 3 + 256 * 4);
}

TEST(NetlinkResourceCap, ZeroMeansNoCap) {
  auto t = ResKernel(6);
  NetlinkResourceCollector c(OpenerOf(t),
                             {.max_comms = 0, .procfs = ProcWithWorkers(6)});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  EXPECT_EQ(SeriesOf(m, "rnic_resource_cqs"), 6u);
  EXPECT_FALSE(
      Sample(m, "rnic_resource_cqs", {{"comm", "[other]"}}).has_value());
}

TEST(NetlinkResourceErrors, MissingContextDumpDisablesOnlyThatPart) {
  LogCapture logs;
  auto t = ResKernel(1);
  t->Set("RES_CTX_GET_dump_dev0", ErrorMsg(EOPNOTSUPP));  // old kernel
  NetlinkResourceCollector c(OpenerOf(t), {.procfs = ProcWithWorkers(1)});
  for (int i = 0; i < 2; ++i) {
    MetricSet m;
    ASSERT_TRUE(c.Collect(Ctx(), m).ok());
    EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "worker0"}}), 1);
  }
  EXPECT_EQ(t->calls().at("RES_CTX_GET_dump_dev0"), 1);
  EXPECT_EQ(logs.Count("part=res_ctx device=mlx5_0"), 1u);
}

// The summary says how many objects of each kind a device holds: a kind it
// counts as 0 is not dumped; a kind it counts, or does not name, is.
TEST(NetlinkResourceSummary, KindsCountedEmptyAreNotDumped) {
  auto t = ResKernel(2);
  Msg sum(kCmdResGet);
  sum.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0").Begin(kAttrResSummary);
  for (auto [name, curr] : {std::pair{"cq", 3}, std::pair{"mr", 0},
                            std::pair{"qp", 0}, std::pair{"pd", 2}}) {
    sum.Begin(kAttrResSummaryEntry)
        .Str(kAttrResSummaryEntryName, name)
        .U64(kAttrResSummaryEntryCurr, curr)
        .End();
  }
  sum.End();
  t->Set("RES_GET_dump", Join({sum.Bytes(), Done()}));
  NetlinkResourceCollector c(OpenerOf(t), {.procfs = ProcWithWorkers(2)});
  MetricSet m;
  ASSERT_TRUE(c.Collect(Ctx(), m).ok());
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "worker1"}}), 2);
  EXPECT_EQ(Sample(m, "rnic_resource_mrs", {{"comm", "worker1"}}), 0);
  EXPECT_EQ(Sample(m, "rnic_resource_objects",
                   {{"device", "mlx5_0"}, {"resource", "mr"}}),
            0);
  EXPECT_FALSE(t->calls().contains("RES_MR_GET_dump_dev0"));
  EXPECT_FALSE(t->calls().contains("RES_QP_GET_dump_dev0"));
  EXPECT_EQ(t->calls().at("RES_CQ_GET_dump_dev0"), 1);
  EXPECT_EQ(t->calls().at("RES_PD_GET_dump_dev0"), 1);
  EXPECT_EQ(t->calls().at("RES_CTX_GET_dump_dev0"), 1);  // not summarized
}

TEST(NetlinkResourceErrors, DumpCutShortPublishesNothingPartial) {
  auto t = ResKernel(3);
  auto bytes = t->replies().at("RES_CQ_GET_dump_dev0");
  bytes.resize(bytes.size() - Done().size() - 8);  // mid-entry, no DONE
  t->Set("RES_CQ_GET_dump_dev0", bytes);
  NetlinkResourceCollector c(OpenerOf(t), {.procfs = ProcWithWorkers(3)});
  MetricSet m;
  EXPECT_FALSE(c.Collect(Ctx(), m).ok());
  EXPECT_EQ(SeriesOf(m, "rnic_resource_cqs"), 0u);
}

TEST(NetlinkResourceErrors, PermissionDeniedOnADumpFailsTheCollector) {
  auto t = ResKernel(1);
  t->Set("RES_MR_GET_dump_dev0", ErrorMsg(EACCES));
  NetlinkResourceCollector c(OpenerOf(t), {.procfs = ProcWithWorkers(1)});
  MetricSet m;
  Status st = c.Collect(Ctx(), m);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().errno_value, EACCES);
}

TEST(NetlinkSpecs, DocsCoverEveryFamilyEmitted) {
  auto t = Mlx5Kernel();
  t->Set("STAT_GET_dev2_port1", Mlx5Stats(1, 1));
  t->Set("STAT_GET_dump_dev2_port1_res19", BoundCounters());
  MetricSet stat_out, res_out;
  ASSERT_TRUE(NetlinkStatCollector(OpenerOf(t), {.procfs = ProcWithComms()})
                  .Collect(Ctx(), stat_out)
                  .ok());
  ASSERT_TRUE(NetlinkResourceCollector(OpenerOf(ResKernel(2)),
                                       {.procfs = ProcWithWorkers(2)})
                  .Collect(Ctx(), res_out)
                  .ok());
  for (auto [spec, set] :
       {std::pair{MakeNetlinkStatCollectorSpec(), &stat_out},
        std::pair{MakeNetlinkResourceCollectorSpec(), &res_out}}) {
    rnic::testing::ExpectDeclared(spec, set->families());
  }
}

}  // namespace
}  // namespace rnic::nl
