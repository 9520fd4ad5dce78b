#include "collectors/netlink/transport.h"

#include <netlink/msg.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

#include "collectors/netlink/rdma_nl_uapi.h"

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
  if (bytes.empty()) return Status::Ok();
  // Messages are 4-byte aligned inside a datagram and libnl reads their
  // headers in place: misaligned input is rejected instead of read.
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % NLMSG_ALIGNTO != 0) {
    return Error{"netlink: misaligned message", EBADMSG};
  }
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    return Error{"netlink: answer too long", EBADMSG};
  }
  // libnl's walk takes a non-const header; it only reads.
  auto* nlh =
      reinterpret_cast<nlmsghdr*>(const_cast<std::uint8_t*>(bytes.data()));
  int rem = static_cast<int>(bytes.size());
  for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
    if (expect_seq != 0 && nlh->nlmsg_seq != expect_seq) {
      continue;  // a late reply to an older request on this socket
    }
    if (nlh->nlmsg_type == NLMSG_DONE) {
      *finished = true;
      return Status::Ok();
    }
    if (nlh->nlmsg_type == NLMSG_ERROR) {
      *finished = true;
      if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
        return Error{"netlink: truncated error message", EBADMSG};
      }
      int err = 0;
      std::memcpy(&err, nlmsg_data(nlh), sizeof(err));
      if (err == 0) return Status::Ok();  // ack
      // The kernel sends -errno (1..4095); anything else, INT_MIN above all
      // (whose negation overflowed, found by tests/fuzz/fuzz_netlink), is
      // not a kernel answer.
      if (err > 0 || err < -4095) {
        return Error{"netlink: bad error code " + std::to_string(err), EBADMSG};
      }
      return Error{"netlink: kernel answered", -err};
    }
    if (nlh->nlmsg_type == NLMSG_NOOP) continue;
    Status st = on_msg(*nlh);
    if (!st.ok()) return st;
    if (end == AnswerEnd::kFirstMessage) {
      *finished = true;
      return Status::Ok();
    }
  }
  // Fewer bytes left than a header, or a header whose length does not fit.
  if (rem >= static_cast<int>(sizeof(nlmsghdr))) {
    return Error{"netlink: bad message length", EBADMSG};
  }
  if (rem > 0) return Error{"netlink: truncated message header", EBADMSG};
  return Status::Ok();
}

}  // namespace rnic::nl
