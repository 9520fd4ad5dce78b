// DCB (IEEE 802.1Qaz) facts of a netdev from the kernel's dcbnl interface:
// RTM_GETDCB with DCB_CMD_IEEE_GET over rtnetlink, the same reply `dcb pfc
// show` and lldptool read. Behind an interface so tests can replay facts.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic {

struct DcbInfo {
  std::optional<std::uint8_t> pfc_enabled;  // ieee_pfc.pfc_en, bit p = prio p
  std::optional<std::uint8_t> pfc_capable;  // ieee_pfc.pfc_cap (# of TCs)
  std::optional<bool> willing;              // ieee_ets.willing
  std::optional<int> app_dscp_entries;      // APP table entries, DSCP selector
  std::optional<std::uint8_t> dcbx;         // DCB_ATTR_DCBX mode bits
};

class DcbSource {
 public:
  virtual ~DcbSource() = default;
  // EOPNOTSUPP: the driver has no dcbnl ops (veth, virtio-net, lo);
  // ENODEV: no such netdev.
  [[nodiscard]] virtual Result<DcbInfo> Query(const std::string& netdev) = 0;
};

// Over `transport` (tests replay one), else a NETLINK_ROUTE socket of the
// collectors' netlink stack opened on first use. Replay key:
// "DCB_IEEE_GET_<netdev>".
[[nodiscard]] std::unique_ptr<DcbSource> MakeRtnetlinkDcbSource(
    std::unique_ptr<nl::NetlinkTransport> transport = nullptr);

// Replays `<dir>/<netdev>` files of "key value" lines (pfc_en, pfc_cap,
// willing, app_dscp, dcbx; numbers in C syntax); a missing file reads as
// EOPNOTSUPP.
[[nodiscard]] std::unique_ptr<DcbSource> MakeFixtureDcbSource(std::string dir);

// Parses one message of the answer: the RTM_GETDCB reply to
// DCB_CMD_IEEE_GET, or nothing for a message that is not one. Malformed
// attributes are an error (errno 0).
[[nodiscard]] Result<std::optional<DcbInfo>> ParseDcbIeeeMessage(
    const nlmsghdr& msg);

// Parses one received rtnetlink datagram (nl::WalkMessages, then
// ParseDcbIeeeMessage): the reply, or an NLMSG_ERROR returned as its errno;
// malformed framing is an error with errno 0.
[[nodiscard]] Result<DcbInfo> ParseDcbIeeeReply(const void* data,
                                                std::size_t len);

}  // namespace rnic
