#include "collectors/netlink/part_switch.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "collectors/netlink/replay_transport.h"
#include "tests/unit/common/captured_log.h"

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
  EXPECT_TRUE(parts.Enabled(PartKey("stat", "mlx5_0")));
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
  EXPECT_TRUE(parts.Enabled(PartKey("qp", "rxe0")));
  EXPECT_EQ(log.Take(), "");
}

TEST(PartSwitch, DisableLogsOneLineWithThePartAsAKey) {
  CapturedLog log;
  PartSwitch parts("netlink_stat");
  const Error why = Error::FromErrno("status", EOPNOTSUPP);
  parts.Disable("status:rxe0", why);
  parts.Disable("status:rxe0", why);
  EXPECT_FALSE(parts.Enabled("status:rxe0"));
  EXPECT_TRUE(parts.Enabled("status:rxe1"));
  const std::string out = log.Take();
  EXPECT_EQ(Lines(out), 1u) << out;
  EXPECT_EQ(out.rfind("collector=netlink_stat msg=\"part disabled: the kernel "
                      "does not support it\" part=status:rxe0 err=",
                      0),
            0u)
      << out;
}

}  // namespace
}  // namespace rnic::nl
