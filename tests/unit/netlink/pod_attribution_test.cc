// netlink_resource with pod-labels on: per-process groups split by pod and
// container from /proc/<pid>/cgroup, on a hand-built CQ dump and a procfs
// tree written by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/family_check.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::Done;
using testing::ErrorMsg;
using testing::Join;
using testing::Msg;
using testing::Sample;
using testing::SeriesOf;

const std::string kUidA = "2c48913c-b29f-11e7-9350-020968147796";
const std::string kUidB = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
const std::string kIdX(64, 'a');
const std::string kIdY(64, 'b');

ScrapeContext Ctx() {
  return ScrapeContext{std::chrono::steady_clock::now() +
                       std::chrono::hours(1)};
}

// One CQ per (pid or kernel name) entry.
std::shared_ptr<ReplayTransport> CqKernel(
    const std::vector<std::uint32_t>& pids, int kernel_cqs) {
  auto t = std::make_shared<ReplayTransport>();
  Msg sum(kCmdResGet);
  sum.U32(kAttrDevIndex, 0)
      .Str(kAttrDevName, "mlx5_0")
      .Begin(kAttrResSummary)
      .Begin(kAttrResSummaryEntry)
      .Str(kAttrResSummaryEntryName, "cq")
      .U64(kAttrResSummaryEntryCurr, 6)
      .End()
      .End();
  t->Set("RES_GET_dump", Join({sum.Bytes(), Done()}));
  Msg dev(kCmdGet, 0);
  dev.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0");
  t->Set("GET_dev0", Join({dev.Bytes(), ErrorMsg(0)}));
  Msg cq(kCmdResCqGet);
  cq.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0").Begin(kAttrResCq);
  std::uint32_t cqn = 0;
  for (std::uint32_t pid : pids) {
    cq.Begin(kAttrResCqEntry)
        .U32(kAttrResCqn, cqn++)
        .U32(kAttrResCqe, 64)
        .U32(kAttrResPid, pid)
        .End();
  }
  for (int i = 0; i < kernel_cqs; ++i) {
    cq.Begin(kAttrResCqEntry)
        .U32(kAttrResCqn, cqn++)
        .U32(kAttrResCqe, 64)
        .Str(kAttrResKernName, "ib_core")
        .End();
  }
  cq.End();
  t->Set("RES_CQ_GET_dump_dev0", Join({cq.Bytes(), Done()}));
  for (const char* k : {"RES_QP_GET_dump_dev0", "RES_MR_GET_dump_dev0",
                        "RES_PD_GET_dump_dev0", "RES_CTX_GET_dump_dev0"}) {
    t->Set(k, Done());
  }
  return t;
}

class PodAttributionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    proc_ =
        ::testing::TempDir() + "/rnic_pod_proc_" + std::to_string(::getpid());
    std::filesystem::remove_all(proc_);
    // 1000: nccl in pod A (systemd driver, cgroup v2); 1001 a thread of it.
    Process(1000, 1000, "nccl",
            "0::/kubepods.slice/kubepods-burstable.slice/"
            "kubepods-burstable-pod2c48913c_b29f_11e7_9350_020968147796.slice/"
            "cri-containerd-" +
                kIdX + ".scope\n");
    Process(1001, 1000, "nccl-proxy", "");
    // 1002: nccl too, in pod B (cgroupfs driver, cgroup v1).
    Process(1002, 1002, "nccl",
            "4:memory:/kubepods/besteffort/pod" + kUidB + "/" + kIdY +
                "\n1:name=systemd:/kubepods/besteffort/pod" + kUidB + "/" +
                kIdY + "\n");
    // 1003: a host process.
    Process(1003, 1003, "ib_write_bw",
            "0::/user.slice/user-1000.slice/session-2.scope\n");
  }
  void TearDown() override { std::filesystem::remove_all(proc_); }

  void Process(int pid, int tgid, const std::string& comm,
               const std::string& cgroup) {
    const std::string dir = proc_ + "/" + std::to_string(pid);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/comm") << comm << "\n";
    std::ofstream(dir + "/status")
        << "Name:\t" << comm << "\nUmask:\t0022\nState:\tS\nTgid:\t" << tgid
        << "\n";
    if (!cgroup.empty()) std::ofstream(dir + "/cgroup") << cgroup;
  }

  MetricSet Scrape(bool pod_labels, std::size_t max_comms,
                   bool slurm_labels = false,
                   const std::vector<std::uint32_t>& pids = {1000, 1001, 1001,
                                                             1002, 1003}) {
    auto t = CqKernel(pids, 1);
    NetlinkResourceCollector c(
        [t]() -> Result<std::shared_ptr<NetlinkTransport>> {
          return std::shared_ptr<NetlinkTransport>(t);
        },
        {.max_comms = max_comms,
         .procfs = proc_,
         .pod_labels = pod_labels,
         .slurm_labels = slurm_labels});
    MetricSet m;
    EXPECT_TRUE(c.Collect(Ctx(), m).ok());
    return m;
  }

  std::string proc_;
};

TEST_F(PodAttributionTest, GroupsSplitByPodAndContainer) {
  const MetricSet m = Scrape(true, 0);
  rnic::testing::ExpectDeclared(MakeNetlinkResourceCollectorSpec(),
                                m.families());
  // nccl's three CQs (two made by its proxy thread) in pod A, container X.
  EXPECT_EQ(
      Sample(m, "rnic_resource_cqs",
             {{"comm", "nccl"}, {"pod_uid", kUidA}, {"container_id", kIdX}}),
      3);
  EXPECT_EQ(
      Sample(m, "rnic_resource_cqs",
             {{"comm", "nccl"}, {"pod_uid", kUidB}, {"container_id", kIdY}}),
      1);
  // Host processes and kernel objects: the comm alone, no pod labels.
  for (const auto& f : m.families()) {
    if (f.name != "rnic_resource_cqs") continue;
    ASSERT_EQ(f.metric.size(), 4u);
    for (const auto& s : f.metric) {
      const std::string comm(LabelValue(s, "comm"));
      const bool pod = comm == "nccl";
      EXPECT_EQ(!LabelValue(s, "pod_uid").empty(), pod) << comm;
      EXPECT_EQ(!LabelValue(s, "container_id").empty(), pod) << comm;
    }
  }
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "ib_write_bw"}}), 1);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "[ib_core]"}}), 1);
}

TEST_F(PodAttributionTest, OffByDefaultCommAlone) {
  const MetricSet m = Scrape(false, 0);
  EXPECT_EQ(SeriesOf(m, "rnic_resource_cqs"), 3u);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "nccl"}}), 4);
  for (const auto& f : m.families()) {
    for (const auto& s : f.metric) {
      EXPECT_TRUE(LabelValue(s, "pod_uid").empty()) << f.name;
    }
  }
}

TEST_F(PodAttributionTest, CapCountsGroupsNotCommands) {
  // Two groups kept: pod A's nccl (3 CQs) and one of the 1-CQ groups (ties
  // break by key); the other two fold into "[other]" without pod labels.
  const MetricSet m = Scrape(true, 2);
  EXPECT_EQ(SeriesOf(m, "rnic_resource_cqs"), 3u);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"pod_uid", kUidA}}), 3);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "[other]"}}), 2);
}

// Slurm jobs: two ranks of job 4242 (cgroup v2, slurmstepd.scope), one of
// job 77 on a cgroup v1 host, beside pod A's process.
TEST_F(PodAttributionTest, SlurmJobsWithSlurmLabels) {
  Process(2000, 2000, "python",
          "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
  Process(2001, 2001, "python",
          "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_1\n");
  Process(2002, 2002, "python",
          "9:memory:/slurm/uid_1000/job_77/step_0/task_0\n"
          "1:name=systemd:/system.slice/slurmd.service\n");
  const std::vector<std::uint32_t> pids = {1000, 2000, 2001, 2002, 1003};
  MetricSet m = Scrape(false, 0, true, pids);
  rnic::testing::ExpectDeclared(MakeNetlinkResourceCollectorSpec(),
                                m.families());
  EXPECT_EQ(Sample(m, "rnic_resource_cqs",
                   {{"comm", "python"}, {"slurm_job_id", "4242"}}),
            2);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs",
                   {{"comm", "python"}, {"slurm_job_id", "77"}}),
            1);
  // Pod labels off: pod A's process is "nccl" alone, no pod_uid.
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "nccl"}}), 1);
  for (const auto& f : m.families()) {
    for (const auto& s : f.metric) {
      EXPECT_TRUE(LabelValue(s, "pod_uid").empty()) << f.name;
      if (LabelValue(s, "comm") != "python") {
        EXPECT_TRUE(LabelValue(s, "slurm_job_id").empty()) << f.name;
      }
    }
  }
  // Both on: each process carries what it is in.
  m = Scrape(true, 0, true, pids);
  EXPECT_EQ(
      Sample(m, "rnic_resource_cqs", {{"comm", "nccl"}, {"pod_uid", kUidA}}),
      1);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"slurm_job_id", "4242"}}), 2);
  // Off (the default): jobs do not split the comm.
  m = Scrape(false, 0, false, pids);
  EXPECT_EQ(Sample(m, "rnic_resource_cqs", {{"comm", "python"}}), 3);
}

}  // namespace
}  // namespace rnic::nl
