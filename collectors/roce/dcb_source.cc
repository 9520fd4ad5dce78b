#include "collectors/roce/dcb_source.h"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace rnic {
namespace {

class RtnetlinkDcbSource final : public DcbSource {
 public:
  ~RtnetlinkDcbSource() override {
    if (fd_ >= 0) close(fd_);
  }

  Result<DcbInfo> Query(const std::string& netdev) override {
    if (netdev.empty() || netdev.size() >= IFNAMSIZ) {
      return Error{"bad netdev name '" + netdev + "'", EINVAL};
    }
    if (fd_ < 0) {
      fd_ = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
      if (fd_ < 0) return Error::FromErrno("socket(NETLINK_ROUTE)", errno);
      // The kernel answers RTM_GETDCB synchronously; the timeout only guards
      // against a reply that never comes.
      timeval tv{1, 0};
      setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      sockaddr_nl local{};
      local.nl_family = AF_NETLINK;
      if (bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) < 0) {
        const int err = errno;
        close(fd_);
        fd_ = -1;
        return Error::FromErrno("bind(NETLINK_ROUTE)", err);
      }
    }
    // nlmsghdr + dcbmsg + DCB_ATTR_IFNAME.
    const std::size_t name_len = netdev.size() + 1;
    const std::size_t msg_len =
        NLMSG_LENGTH(sizeof(dcbmsg)) + NLA_ALIGN(NLA_HDRLEN + name_len);
    std::vector<std::uint8_t> req(NLMSG_ALIGN(msg_len), 0);
    auto* nlh = reinterpret_cast<nlmsghdr*>(req.data());
    nlh->nlmsg_len = static_cast<std::uint32_t>(msg_len);
    nlh->nlmsg_type = RTM_GETDCB;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = ++seq_;
    auto* dcb = static_cast<dcbmsg*>(NLMSG_DATA(nlh));
    dcb->dcb_family = AF_UNSPEC;
    dcb->cmd = DCB_CMD_IEEE_GET;
    auto* attr =
        reinterpret_cast<nlattr*>(req.data() + NLMSG_LENGTH(sizeof(dcbmsg)));
    attr->nla_type = DCB_ATTR_IFNAME;
    attr->nla_len = static_cast<std::uint16_t>(NLA_HDRLEN + name_len);
    std::memcpy(reinterpret_cast<char*>(attr) + NLA_HDRLEN, netdev.c_str(),
                name_len);

    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd_, req.data(), msg_len, 0,
               reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0) {
      return Reset(Error::FromErrno("send RTM_GETDCB " + netdev, errno));
    }
    std::vector<std::uint8_t> buf(32768);
    for (;;) {
      const ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Reset(Error::FromErrno("recv RTM_GETDCB " + netdev, errno));
      }
      const auto* h = reinterpret_cast<const nlmsghdr*>(buf.data());
      if (static_cast<std::size_t>(n) >= sizeof(nlmsghdr) &&
          h->nlmsg_seq != seq_) {
        continue;  // a stale answer to an earlier, timed-out request
      }
      auto info = ParseDcbIeeeReply(buf.data(), static_cast<std::size_t>(n));
      if (!info.ok()) {
        Error e = info.error();
        e.message = "DCB_CMD_IEEE_GET " + netdev + ": " + e.message;
        return e;
      }
      return info;
    }
  }

 private:
  Error Reset(Error e) {
    close(fd_);
    fd_ = -1;
    return e;
  }

  int fd_ = -1;
  std::uint32_t seq_ = 0;
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

std::unique_ptr<DcbSource> MakeRtnetlinkDcbSource() {
  return std::make_unique<RtnetlinkDcbSource>();
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
