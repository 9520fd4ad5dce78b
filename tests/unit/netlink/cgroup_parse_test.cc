#include "collectors/netlink/cgroup_parse.h"

#include <gtest/gtest.h>

#include "collectors/netlink/comm_resolver.h"

namespace rnic::nl {
namespace {

const std::string kUid = "2c48913c-b29f-11e7-9350-020968147796";
const std::string kUidSystemd = "2c48913c_b29f_11e7_9350_020968147796";
const std::string kId =
    "9d5d2c1fb1d7f23ae8e1b5c51f0ed1e5d4cc3ad3bcd38a2a3e5e3b2c1f0a9e8d";

ContainerRef Pod() { return ContainerRef{kUid, kId}; }

TEST(CgroupParseTest, SystemdDriverContainerd) {
  EXPECT_EQ(
      ParseCgroupPath("/kubepods.slice/kubepods-burstable.slice/"
                      "kubepods-burstable-pod" +
                      kUidSystemd + ".slice/cri-containerd-" + kId + ".scope"),
      Pod());
  // Guaranteed QoS: no QoS slice.
  EXPECT_EQ(ParseCgroupPath("/kubepods.slice/kubepods-pod" + kUidSystemd +
                            ".slice/cri-containerd-" + kId + ".scope"),
            Pod());
}

TEST(CgroupParseTest, SystemdDriverCrio) {
  EXPECT_EQ(ParseCgroupPath("/kubepods.slice/kubepods-besteffort.slice/"
                            "kubepods-besteffort-pod" +
                            kUidSystemd + ".slice/crio-" + kId + ".scope"),
            Pod());
  // conmon is CRI-O's monitor, not the container.
  EXPECT_EQ(
      ParseCgroupPath("/kubepods.slice/kubepods-besteffort.slice/"
                      "kubepods-besteffort-pod" +
                      kUidSystemd + ".slice/crio-conmon-" + kId + ".scope"),
      (ContainerRef{kUid, ""}));
}

TEST(CgroupParseTest, CgroupfsDriver) {
  EXPECT_EQ(ParseCgroupPath("/kubepods/burstable/pod" + kUid + "/" + kId),
            Pod());
  EXPECT_EQ(ParseCgroupPath("/kubepods/pod" + kUid + "/" + kId), Pod());
  EXPECT_EQ(ParseCgroupPath("/kubepods/besteffort/pod" + kUid + "/crio-" + kId),
            Pod());
}

TEST(CgroupParseTest, NestedKubeletAndSubCgroups) {
  // kind and other nested setups put kubelet's tree under a slice of its own.
  EXPECT_EQ(
      ParseCgroupPath("/kubelet.slice/kubelet-kubepods.slice/"
                      "kubelet-kubepods-besteffort.slice/"
                      "kubelet-kubepods-besteffort-pod" +
                      kUidSystemd + ".slice/cri-containerd-" + kId + ".scope"),
      Pod());
  // A process in a sub-cgroup of its container (systemd inside it).
  EXPECT_EQ(ParseCgroupPath("/kubepods/burstable/pod" + kUid + "/" + kId +
                            "/init.scope"),
            Pod());
}

TEST(CgroupParseTest, ContainersWithoutKubernetes) {
  EXPECT_EQ(ParseCgroupPath("/system.slice/docker-" + kId + ".scope"),
            (ContainerRef{"", kId}));
  EXPECT_EQ(ParseCgroupPath("/docker/" + kId), (ContainerRef{"", kId}));
  // "pod<uid>" outside a kubepods tree is not kubelet's.
  EXPECT_EQ(ParseCgroupPath("/machine.slice/pod" + kUid + "/" + kId),
            (ContainerRef{"", kId}));
}

TEST(CgroupParseTest, HostProcessesAndLookalikes) {
  EXPECT_TRUE(ParseCgroupPath("/").empty());
  EXPECT_TRUE(
      ParseCgroupPath("/user.slice/user-1000.slice/session-3.scope").empty());
  EXPECT_TRUE(ParseCgroupPath("/system.slice/containerd.service").empty());
  EXPECT_TRUE(ParseCgroupPath("/kubepods/burstable/podnotauid/abc").empty());
  // A short or upper-case ID is not a runtime's.
  EXPECT_TRUE(ParseCgroupPath("/docker/9d5d2c1fb1d7").empty());
  EXPECT_TRUE(ParseCgroupPath("").empty());
}

TEST(CgroupParseTest, FileCgroupV2) {
  EXPECT_EQ(ParseCgroupFile("0::/kubepods.slice/kubepods-burstable.slice/"
                            "kubepods-burstable-pod" +
                            kUidSystemd + ".slice/cri-containerd-" + kId +
                            ".scope\n"),
            Pod());
  EXPECT_TRUE(ParseCgroupFile("0::/\n").empty());  // cgroup namespace
}

TEST(CgroupParseTest, FileCgroupV1AndHybrid) {
  const std::string v1 = "12:pids:/kubepods/burstable/pod" + kUid + "/" + kId +
                         "\n"
                         "11:cpu,cpuacct:/kubepods/burstable/pod" +
                         kUid + "/" + kId +
                         "\n"
                         "1:name=systemd:/kubepods/burstable/pod" +
                         kUid + "/" + kId + "\n";
  EXPECT_EQ(ParseCgroupFile(v1), Pod());
  // Hybrid: the v2 line names nothing, the v1 lines do.
  EXPECT_EQ(ParseCgroupFile(v1 + "0::/\n"), Pod());
  EXPECT_TRUE(ParseCgroupFile("garbage\n\n3:\n").empty());
}

ContainerRef Job(const std::string& id) { return ContainerRef{"", "", id}; }

TEST(CgroupParseTest, SlurmCgroupV2) {
  // cgroup/v2 plugin: slurmstepd's scope, then job, step, user/task.
  EXPECT_EQ(ParseCgroupPath("/system.slice/slurmstepd.scope/job_1234/step_0/"
                            "user/task_0"),
            Job("1234"));
  EXPECT_EQ(ParseCgroupPath("/system.slice/slurmstepd.scope/job_88213/"
                            "step_batch/user/task_0"),
            Job("88213"));
  EXPECT_EQ(ParseCgroupPath("/system.slice/slurmstepd.scope/job_88213/"
                            "step_extern/user/task_special"),
            Job("88213"));
  // Several slurmd on one host: the scope carries the node name.
  EXPECT_EQ(ParseCgroupPath("/system.slice/gpu-node-07_slurmstepd.scope/"
                            "job_51/step_interactive/user/task_0"),
            Job("51"));
  // slurmstepd itself, outside any job.
  EXPECT_TRUE(ParseCgroupPath("/system.slice/slurmstepd.scope/system").empty());
  EXPECT_TRUE(ParseCgroupPath("/system.slice/slurmd.service").empty());
  EXPECT_EQ(ParseCgroupFile("0::/system.slice/slurmstepd.scope/job_1234/"
                            "step_0/user/task_1\n"),
            Job("1234"));
}

TEST(CgroupParseTest, SlurmCgroupV1) {
  EXPECT_EQ(ParseCgroupPath("/slurm/uid_1000/job_1234/step_0/task_0"),
            Job("1234"));
  EXPECT_EQ(ParseCgroupPath("/slurm_gpu-node-07/uid_1000/job_9/step_batch"),
            Job("9"));
  // A v1 hierarchy per controller; the job is the same in each.
  const std::string v1 =
      "12:devices:/slurm/uid_1000/job_1234/step_0/task_0\n"
      "9:memory:/slurm/uid_1000/job_1234/step_0/task_0\n"
      "4:cpuset:/slurm/uid_1000/job_1234/step_0\n"
      "1:name=systemd:/system.slice/slurmd.service\n"
      "0::/system.slice/slurmd.service\n";
  EXPECT_EQ(ParseCgroupFile(v1), Job("1234"));
}

TEST(CgroupParseTest, SlurmLookalikes) {
  // "job_<id>" outside a slurm cgroup, or not all digits, is no job.
  EXPECT_TRUE(ParseCgroupPath("/user.slice/job_1234/step_0").empty());
  EXPECT_TRUE(ParseCgroupPath("/slurm/uid_1000/job_12a/step_0").empty());
  EXPECT_TRUE(ParseCgroupPath("/slurm/uid_1000/job_/step_0").empty());
  EXPECT_TRUE(ParseCgroupPath("/slurm/uid_1000").empty());
  // A container started inside a job keeps both.
  EXPECT_EQ(ParseCgroupPath("/system.slice/slurmstepd.scope/job_7/step_0/"
                            "user/docker-" +
                            kId + ".scope"),
            (ContainerRef{"", kId, "7"}));
}

TEST(CgroupParseTest, GroupKeysRoundTrip) {
  const ContainerRef both{kUid, kId, "4242"};
  for (const std::string comm : {"nccl",
                                 "a\x1f"
                                 "b",
                                 ""}) {
    const GroupLabels g = SplitGroupKey(MakeGroupKey(comm, both));
    EXPECT_EQ(g.comm, comm);
    EXPECT_EQ(g.container, both);
  }
  EXPECT_EQ(MakeGroupKey("nccl", {}), "nccl");
  EXPECT_EQ(SplitGroupKey("nccl").container, ContainerRef{});
  const GroupLabels job = SplitGroupKey(MakeGroupKey("python", Job("77")));
  EXPECT_EQ(job.comm, "python");
  EXPECT_EQ(job.container, Job("77"));
}

}  // namespace
}  // namespace rnic::nl
