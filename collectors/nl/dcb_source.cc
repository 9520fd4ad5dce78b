#include "collectors/nl/dcb_source.h"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectors/nl/attr_parser.h"
#include "collectors/nl/attr_writer.h"
#include "collectors/nl/kernel_transport.h"

namespace rnic {
namespace {

// Policies (expected kind per attribute number) of the RTM_GETDCB reply,
// from linux/dcbnl.h. The structs are kBinary: an older kernel's shorter
// struct is read as far as it goes.
constexpr auto kDcbPolicy = [] {
  std::array<nl::AttrKind, DCB_ATTR_MAX + 1> p{};
  p[DCB_ATTR_IEEE] = nl::AttrKind::kNested;
  p[DCB_ATTR_DCBX] = nl::AttrKind::kBinary;
  return p;
}();

constexpr auto kIeeePolicy = [] {
  std::array<nl::AttrKind, DCB_ATTR_IEEE_MAX + 1> p{};
  p[DCB_ATTR_IEEE_ETS] = nl::AttrKind::kBinary;
  p[DCB_ATTR_IEEE_PFC] = nl::AttrKind::kBinary;
  p[DCB_ATTR_IEEE_APP_TABLE] = nl::AttrKind::kNested;
  return p;
}();

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
      auto t =
          nl::KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(1));
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
      auto r = ParseDcbIeeeMessage(msg);
      if (!r) return r.error();
      if (*r) info = **r;
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

Result<std::optional<DcbInfo>> ParseDcbIeeeMessage(const nlmsghdr& msg) {
  if (msg.nlmsg_type != RTM_GETDCB) return std::optional<DcbInfo>();
  if (msg.nlmsg_len < NLMSG_LENGTH(sizeof(dcbmsg))) {
    return Error{"truncated RTM_GETDCB reply"};
  }
  dcbmsg dcb;
  std::memcpy(&dcb, NLMSG_DATA(&msg), sizeof(dcb));
  if (dcb.cmd != DCB_CMD_IEEE_GET) return std::optional<DcbInfo>();
  nl::Attrs tb(kDcbPolicy);
  const auto* attrs =
      reinterpret_cast<const std::uint8_t*>(&msg) + NLMSG_SPACE(sizeof(dcbmsg));
  if (!tb.Parse(attrs, msg.nlmsg_len - NLMSG_SPACE(sizeof(dcbmsg))).ok()) {
    return Error{"malformed RTM_GETDCB attributes"};
  }
  DcbInfo info;
  if (auto dcbx = tb.Binary(DCB_ATTR_DCBX); dcbx && dcbx->len >= 1) {
    info.dcbx = dcbx->data[0];
  }
  auto ieee_nest = tb.Nested(DCB_ATTR_IEEE);
  if (!ieee_nest) return std::optional<DcbInfo>(info);
  nl::Attrs ieee(kIeeePolicy);
  if (!ieee.ParseNested(*ieee_nest).ok()) {
    return Error{"malformed DCB_ATTR_IEEE"};
  }
  // Shorter structs than ours come from older kernels: what they hold is
  // read, the rest stays unknown.
  if (auto p = ieee.Binary(DCB_ATTR_IEEE_PFC);
      p && p->len >= offsetof(ieee_pfc, mbc)) {
    ieee_pfc pfc{};
    std::memcpy(&pfc, p->data, std::min<std::size_t>(sizeof(pfc), p->len));
    info.pfc_enabled = pfc.pfc_en;
    info.pfc_capable = pfc.pfc_cap;
  }
  if (auto e = ieee.Binary(DCB_ATTR_IEEE_ETS); e && e->len >= 1) {
    ieee_ets ets{};
    std::memcpy(&ets, e->data, std::min<std::size_t>(sizeof(ets), e->len));
    info.willing = ets.willing != 0;
  }
  if (auto apps = ieee.Nested(DCB_ATTR_IEEE_APP_TABLE)) {
    int dscp = 0;
    Status st = nl::ForEachNested(
        *apps, [&](std::uint16_t type, nl::AttrView v) -> Status {
          if (type != DCB_ATTR_IEEE_APP || v.len < sizeof(dcb_app)) {
            return Status::Ok();
          }
          dcb_app entry{};
          std::memcpy(&entry, v.data, sizeof(entry));
          if (entry.selector == IEEE_8021QAZ_APP_SEL_DSCP) ++dscp;
          return Status::Ok();
        });
    if (!st.ok()) return Error{"malformed DCB_ATTR_IEEE_APP_TABLE"};
    info.app_dscp_entries = dscp;
  }
  return std::optional<DcbInfo>(info);
}

Result<DcbInfo> ParseDcbIeeeReply(const void* data, std::size_t len) {
  std::optional<DcbInfo> info;
  bool finished = false;
  Status st = nl::WalkMessages(
      std::span(static_cast<const std::uint8_t*>(data), len), 0,
      [&](const nlmsghdr& msg) -> Status {
        if (info) return Status::Ok();  // the first reply counts
        auto r = ParseDcbIeeeMessage(msg);
        if (!r) return r.error();
        info = *r;
        return Status::Ok();
      },
      &finished);
  if (!st.ok()) {
    const Error& e = st.error();
    // The walk's framing errors (EBADMSG) are a malformed datagram here;
    // a kernel answer carries its errno.
    if (e.errno_value == EBADMSG) return Error{"malformed reply: " + e.message};
    if (e.errno_value != 0)
      return Error::FromErrno("kernel error", e.errno_value);
    return e;
  }
  if (!info) return Error{"no RTM_GETDCB reply in the datagram"};
  return *info;
}

}  // namespace rnic
