#include "collectors/netlink/cgroup_parse.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rnic::nl
