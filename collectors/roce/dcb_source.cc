#include "collectors/roce/dcb_source.h"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "collectors/netlink/attr_writer.h"
#include "collectors/netlink/libnl_transport.h"

namespace rnic {
namespace {

// On the collectors' one netlink stack (collectors/netlink), over
// NETLINK_ROUTE: RTM_GETDCB carries a dcbmsg header and DCB_ATTR_IFNAME.
class RtnetlinkDcbSource final : public DcbSource {
 public:
  explicit RtnetlinkDcbSource(std::unique_ptr<nl::NetlinkTransport> t)
      : transport_(std::move(t)), injected_(transport_ != nullptr) {}

  Result<DcbInfo> Query(const std::string& netdev) override {
    if (netdev.empty() || netdev.size() >= IFNAMSIZ) {
      return Error{"bad netdev name '" + netdev + "'", EINVAL};
    }
    if (!transport_) {
      // The kernel answers RTM_GETDCB synchronously; the timeout only
      // guards against a reply that never comes.
      auto t = nl::LibnlTransport::Open(NETLINK_ROUTE, std::chrono::seconds(1));
      if (!t) return t.error();
      transport_ = std::move(*t);
    }
    nl::Request req;
    req.cmd = DCB_CMD_IEEE_GET;
    req.msg_type = RTM_GETDCB;
    const dcbmsg dcb{AF_UNSPEC, DCB_CMD_IEEE_GET, 0};
    const auto* p = reinterpret_cast<const std::uint8_t*>(&dcb);
    req.header.assign(p, p + sizeof(dcb));
    nl::AttrWriter w;
    w.PutString(DCB_ATTR_IFNAME, netdev);
    req.attrs = std::move(w).Take();
    req.name = "DCB_IEEE_GET_" + netdev;
    std::optional<DcbInfo> info;
    Status st = transport_->Exchange(req, [&](const nlmsghdr& msg) -> Status {
      auto r = ParseDcbIeeeReply(&msg, msg.nlmsg_len);
      if (!r) return r.error();
      info = *r;
      return Status::Ok();
    });
    if (!st.ok()) {
      const int err = st.error().errno_value;
      // A kernel answer (EOPNOTSUPP, ENODEV) leaves the socket usable;
      // anything else (a timeout) gets a fresh socket next time.
      if (!injected_ && err != EOPNOTSUPP && err != ENODEV) transport_.reset();
      return Error{"DCB_CMD_IEEE_GET " + netdev + ": " + st.error().message,
                   err};
    }
    if (!info) {
      return Error{"DCB_CMD_IEEE_GET " + netdev + ": no RTM_GETDCB reply",
                   EBADMSG};
    }
    return *info;
  }

 private:
  std::unique_ptr<nl::NetlinkTransport> transport_;
  bool injected_;
};

class FixtureDcbSource final : public DcbSource {
 public:
  explicit FixtureDcbSource(std::string dir) : dir_(std::move(dir)) {}

  Result<DcbInfo> Query(const std::string& netdev) override {
    std::ifstream in(dir_ + "/" + netdev);
    if (!in)
      return Error::FromErrno("no DCB capture for " + netdev, EOPNOTSUPP);
    DcbInfo info;
    std::string key, value;
    while (in >> key >> value) {
      long v = 0;
      try {
        v = std::stol(value, nullptr, 0);
      } catch (const std::exception&) {
        return Error{"DCB fixture " + netdev + ": bad value for " + key};
      }
      if (key == "pfc_en") {
        info.pfc_enabled = static_cast<std::uint8_t>(v);
      } else if (key == "pfc_cap") {
        info.pfc_capable = static_cast<std::uint8_t>(v);
      } else if (key == "willing") {
        info.willing = v != 0;
      } else if (key == "app_dscp") {
        info.app_dscp_entries = static_cast<int>(v);
      } else if (key == "dcbx") {
        info.dcbx = static_cast<std::uint8_t>(v);
      } else {
        return Error{"DCB fixture " + netdev + ": unknown key " + key};
      }
    }
    return info;
  }

 private:
  std::string dir_;
};

}  // namespace

std::unique_ptr<DcbSource> MakeRtnetlinkDcbSource(
    std::unique_ptr<nl::NetlinkTransport> transport) {
  return std::make_unique<RtnetlinkDcbSource>(std::move(transport));
}

std::unique_ptr<DcbSource> MakeFixtureDcbSource(std::string dir) {
  return std::make_unique<FixtureDcbSource>(std::move(dir));
}

Result<DcbInfo> ParseDcbIeeeReply(const void* data, std::size_t len) {
  // libnl's parsers take a non-const header; they do not write through it.
  auto* nlh = static_cast<nlmsghdr*>(const_cast<void*>(data));
  int remaining = static_cast<int>(len);
  for (; NLMSG_OK(nlh, remaining); nlh = NLMSG_NEXT(nlh, remaining)) {
    if (nlh->nlmsg_type == NLMSG_ERROR) {
      if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) {
        return Error{"truncated NLMSG_ERROR"};
      }
      const auto* err = static_cast<const nlmsgerr*>(NLMSG_DATA(nlh));
      if (err->error == 0) continue;  // an ACK
      // -errno, 1..4095; negating INT_MIN overflowed (found by fuzz_dcb).
      if (err->error > 0 || err->error < -4095) {
        return Error{"malformed NLMSG_ERROR code " +
                     std::to_string(err->error)};
      }
      return Error::FromErrno("kernel error", -err->error);
    }
    if (nlh->nlmsg_type != RTM_GETDCB) continue;
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(dcbmsg))) {
      return Error{"truncated RTM_GETDCB reply"};
    }
    const auto* dcb = static_cast<const dcbmsg*>(NLMSG_DATA(nlh));
    if (dcb->cmd != DCB_CMD_IEEE_GET) continue;
    nlattr* tb[DCB_ATTR_MAX + 1] = {};
    if (nlmsg_parse(nlh, sizeof(dcbmsg), tb, DCB_ATTR_MAX, nullptr) < 0) {
      return Error{"malformed RTM_GETDCB attributes"};
    }
    DcbInfo info;
    if (tb[DCB_ATTR_DCBX] && nla_len(tb[DCB_ATTR_DCBX]) >= 1) {
      info.dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
    }
    if (tb[DCB_ATTR_IEEE]) {
      nlattr* ieee[DCB_ATTR_IEEE_MAX + 1] = {};
      if (nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE],
                           nullptr) < 0) {
        return Error{"malformed DCB_ATTR_IEEE"};
      }
      if (ieee[DCB_ATTR_IEEE_PFC] &&
          nla_len(ieee[DCB_ATTR_IEEE_PFC]) >=
              static_cast<int>(offsetof(ieee_pfc, mbc))) {
        ieee_pfc pfc{};
        std::memcpy(&pfc, nla_data(ieee[DCB_ATTR_IEEE_PFC]),
                    std::min<std::size_t>(sizeof(pfc),
                                          nla_len(ieee[DCB_ATTR_IEEE_PFC])));
        info.pfc_enabled = pfc.pfc_en;
        info.pfc_capable = pfc.pfc_cap;
      }
      if (ieee[DCB_ATTR_IEEE_ETS] && nla_len(ieee[DCB_ATTR_IEEE_ETS]) >= 1) {
        info.willing =
            static_cast<const ieee_ets*>(nla_data(ieee[DCB_ATTR_IEEE_ETS]))
                ->willing != 0;
      }
      if (ieee[DCB_ATTR_IEEE_APP_TABLE]) {
        int dscp = 0;
        nlattr* app = nullptr;
        int rem = 0;
        nla_for_each_nested(app, ieee[DCB_ATTR_IEEE_APP_TABLE], rem) {
          if (nla_type(app) != DCB_ATTR_IEEE_APP ||
              nla_len(app) < static_cast<int>(sizeof(dcb_app))) {
            continue;
          }
          dcb_app entry{};
          std::memcpy(&entry, nla_data(app), sizeof(entry));
          if (entry.selector == IEEE_8021QAZ_APP_SEL_DSCP) ++dscp;
        }
        info.app_dscp_entries = dscp;
      }
    }
    return info;
  }
  return Error{"no RTM_GETDCB reply in the datagram"};
}

}  // namespace rnic
