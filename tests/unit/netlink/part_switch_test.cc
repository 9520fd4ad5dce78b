#include "collectors/netlink/part_switch.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "collectors/nl/rdma_nl_uapi.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/common/captured_log.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

std::size_t Lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(PartSwitch, FailedRequestIsLoggedOncePerErrnoWithItsOwnKeys) {
  CapturedLog log;
  PartSwitch parts("netlink_stat");
  ReplayTransport t;  // not asked: permission errors need no device check
  const Error eperm = Error::FromErrno("stat", EPERM);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(HandlePartError(parts, t, "stat", 0, "mlx5_0", eperm).ok());
  }
  std::string out = log.Take();
  EXPECT_EQ(Lines(out), 1u) << out;
  EXPECT_EQ(out.rfind("collector=netlink_stat msg=\"request failed\" "
                      "part=stat device=mlx5_0 err=",
                      0),
            0u)
      << out;
  // Another errno is news; the same part of another device is its own key.
  EXPECT_FALSE(HandlePartError(parts, t, "stat", 0, "mlx5_0",
                               Error::FromErrno("stat", EIO))
                   .ok());
  EXPECT_FALSE(HandlePartError(parts, t, "stat", 1, "mlx5_1", eperm).ok());
  out = log.Take();
  EXPECT_EQ(Lines(out), 2u) << out;
  EXPECT_TRUE(parts.Enabled("stat", 0));
}

TEST(PartSwitch, UnsupportedOnAVanishedDeviceIsSilentAndKeepsThePart) {
  CapturedLog log;
  PartSwitch parts("netlink_resource");
  ReplayTransport t;  // GET has no reply: the device is gone
  EXPECT_TRUE(HandlePartError(parts, t, "qp", 3, "rxe0",
                              Error::FromErrno("qp", EOPNOTSUPP))
                  .ok());
  EXPECT_TRUE(
      HandlePartError(parts, t, "qp", 3, "rxe0", Error::FromErrno("qp", ENODEV))
          .ok());
  EXPECT_TRUE(parts.Enabled("qp", 3));
  EXPECT_EQ(log.Take(), "");
}

TEST(PartSwitch, DisableLogsOneLineNamingThePartAndDevice) {
  CapturedLog log;
  PartSwitch parts("netlink_stat");
  const Error why = Error::FromErrno("status", EOPNOTSUPP);
  parts.Disable("status", 4, "rxe0", why);
  parts.Disable("status", 4, "rxe0", why);
  EXPECT_FALSE(parts.Enabled("status", 4));
  EXPECT_TRUE(parts.Enabled("status", 5));
  EXPECT_TRUE(parts.Enabled("stat", 4));
  const std::string out = log.Take();
  EXPECT_EQ(Lines(out), 1u) << out;
  EXPECT_EQ(out.rfind("collector=netlink_stat msg=\"part disabled: the kernel "
                      "does not support it\" part=status device=rxe0 err=",
                      0),
            0u)
      << out;
}

TEST(PartSwitch, ANewRegistrationUnderTheSameNameIsAskedAgain) {
  // EINVAL mid-teardown while GET still lists the device switches the part
  // off; rdma link add rxe0 again gets a new index, and its counters.
  CapturedLog log;
  PartSwitch parts("netlink_stat");
  ReplayTransport t;
  testing::Msg dev(kCmdGet);
  dev.U32(kAttrDevIndex, 3).Str(kAttrDevName, "rxe0");
  t.Set("GET_dev3", testing::Join({dev.Bytes(), testing::ErrorMsg(0)}));
  EXPECT_TRUE(HandlePartError(parts, t, "stat", 3, "rxe0",
                              Error::FromErrno("stat", EINVAL))
                  .ok());
  EXPECT_FALSE(parts.Enabled("stat", 3));
  EXPECT_TRUE(parts.Enabled("stat", 7));
}

}  // namespace
}  // namespace rnic::nl
