#include "collectors/nl/transport.h"

#include <cstring>
#include <string>

#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl {

std::string CmdName(std::uint16_t cmd) {
  switch (cmd) {
    case kCmdGet:
      return "GET";
    case kCmdPortGet:
      return "PORT_GET";
    case kCmdResGet:
      return "RES_GET";
    case kCmdResQpGet:
      return "RES_QP_GET";
    case kCmdResCmIdGet:
      return "RES_CM_ID_GET";
    case kCmdResCqGet:
      return "RES_CQ_GET";
    case kCmdResMrGet:
      return "RES_MR_GET";
    case kCmdResPdGet:
      return "RES_PD_GET";
    case kCmdResCtxGet:
      return "RES_CTX_GET";
    case kCmdResSrqGet:
      return "RES_SRQ_GET";
    case kCmdStatSet:
      return "STAT_SET";
    case kCmdStatGet:
      return "STAT_GET";
    case kCmdStatGetStatus:
      return "STAT_GET_STATUS";
    case kCmdSysGet:
      return "SYS_GET";
    default:
      return "CMD" + std::to_string(cmd);
  }
}

std::string Request::Key() const {
  if (!name.empty()) return name;
  std::string key = CmdName(cmd);
  if (dump) key += "_dump";
  for (const auto& [type, value] : u32_attrs) {
    switch (type) {
      case kAttrDevIndex:
        key += "_dev";
        break;
      case kAttrPortIndex:
        key += "_port";
        break;
      case kAttrStatRes:
        key += "_res";
        break;
      case kAttrStatMode:
        key += "_mode";
        break;
      case kAttrResLqpn:
        key += "_qpn";
        break;
      case kAttrStatCounterId:
        key += "_counter";
        break;
      default:
        key += "_a" + std::to_string(type) + "-";
        break;
    }
    key += std::to_string(value);
  }
  return key;
}

void NetlinkTransport::ExchangeBatch(std::span<const Request> reqs,
                                     const BatchCallback& on_msg,
                                     std::vector<Status>& results) {
  results.assign(reqs.size(), Status::Ok());
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    results[i] =
        Exchange(reqs[i], [&](const nlmsghdr& m) { return on_msg(i, m); });
  }
}

Status WalkMessages(std::span<const std::uint8_t> bytes,
                    std::uint32_t expect_seq, const MessageCallback& on_msg,
                    bool* finished, AnswerEnd end) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const std::size_t left = bytes.size() - off;
    if (left < sizeof(nlmsghdr)) {
      return Error{"netlink: truncated message header", EBADMSG};
    }
    nlmsghdr hdr;
    std::memcpy(&hdr, bytes.data() + off, sizeof(hdr));
    if (hdr.nlmsg_len < sizeof(nlmsghdr) || hdr.nlmsg_len > left) {
      return Error{"netlink: bad message length", EBADMSG};
    }
    // Messages are 4-byte aligned inside a datagram; the attribute parser
    // relies on it, so misaligned input is rejected instead of read.
    if (reinterpret_cast<std::uintptr_t>(bytes.data() + off) % 4 != 0) {
      return Error{"netlink: misaligned message", EBADMSG};
    }
    const auto* msg = reinterpret_cast<const nlmsghdr*>(bytes.data() + off);
    if (expect_seq != 0 && hdr.nlmsg_seq != expect_seq) {
      // A late reply to an older request on this socket: skip it.
    } else if (hdr.nlmsg_type == NLMSG_DONE) {
      *finished = true;
      return Status::Ok();
    } else if (hdr.nlmsg_type == NLMSG_ERROR) {
      *finished = true;
      if (hdr.nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
        return Error{"netlink: truncated error message", EBADMSG};
      }
      int err = 0;
      std::memcpy(&err, bytes.data() + off + NLMSG_HDRLEN, sizeof(err));
      if (err == 0) return Status::Ok();  // ack
      // The kernel sends -errno (1..4095); anything else, INT_MIN above all
      // (whose negation overflowed, found by tests/fuzz/fuzz_netlink), is
      // not a kernel answer.
      if (err > 0 || err < -4095) {
        return Error{"netlink: bad error code " + std::to_string(err), EBADMSG};
      }
      return Error{"netlink: kernel answered", -err};
    } else if (hdr.nlmsg_type == NLMSG_NOOP) {
      // nothing
    } else {
      Status st = on_msg(*msg);
      if (!st.ok()) return st;
      if (end == AnswerEnd::kFirstMessage) {
        *finished = true;
        return Status::Ok();
      }
    }
    off += NLMSG_ALIGN(hdr.nlmsg_len);
  }
  return Status::Ok();
}

}  // namespace rnic::nl
