// The kernel boundary of every netlink user: a NetlinkTransport sends one
// netlink request (RDMA, generic netlink such as ethtool, rtnetlink such as
// dcbnl) and hands every reply message to a callback as it arrives, so dumps
// are processed while they stream (no copy of a 100k-QP dump is ever held).
// KernelTransport talks to the kernel; ReplayTransport feeds bytes recorded
// from it (tests, benchmarks).
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "collectors/common/result.h"

namespace rnic::nl {

struct Request {
  // The RDMA command; for other protocols, what `header` carries (for
  // names and logs only).
  std::uint16_t cmd = 0;  // enum Cmd
  bool dump = false;      // NLM_F_DUMP
  // u32 attributes in the order they are sent (DEV_INDEX, PORT_INDEX, ...).
  std::vector<std::pair<std::uint16_t, std::uint32_t>> u32_attrs;

  // Other protocols than RDMA: the message type (a generic netlink family
  // id, RTM_GETDCB) and the family's fixed header sent before the
  // attributes (genlmsghdr, dcbmsg). Unset: an RDMA request, whose type is
  // MsgType(cmd) and which has no fixed header.
  std::optional<std::uint16_t> msg_type;
  std::vector<std::uint8_t> header;
  // Attributes already encoded (AttrWriter: nests, strings, u8), sent after
  // u32_attrs.
  std::vector<std::uint8_t> attrs;
  // The replay key of requests Key() cannot name from u32_attrs alone
  // (generic netlink: "ETHTOOL_FEC_GET_eth0", rtnetlink: "DCB_IEEE_GET_eth0");
  // empty for RDMA requests.
  std::string name;

  // A GET doit answered by exactly one message (or an error, which the
  // kernel always sends): no NLM_F_ACK is asked, and the answer ends with
  // that message. Saves the ack's allocation in the kernel and a datagram
  // per request. Requests that may answer nothing on success (SETs) keep
  // the ack.
  bool single_reply = false;

  // A stable, file-name-safe name for the request, e.g.
  // "STAT_GET_dev1_port1" or "RES_QP_GET_dump_dev1", or `name` when set.
  // Replay files use it.
  [[nodiscard]] std::string Key() const;
};

// Called once per reply message carrying data (never for DONE / ERROR).
// A non-ok Status stops the exchange and is returned by Exchange().
using MessageCallback = std::function<Status(const nlmsghdr& msg)>;

// Called with the position, in the batch, of the request a message answers.
using BatchCallback =
    std::function<Status(std::size_t request, const nlmsghdr& msg)>;

class NetlinkTransport {
 public:
  virtual ~NetlinkTransport() = default;
  // Sends `req` and feeds its replies to `on_msg` until the kernel ends the
  // answer (NLMSG_DONE, an ack, or an error). A kernel error comes back as
  // Error with errno_value set (e.g. EOPNOTSUPP, EINVAL, EPERM).
  [[nodiscard]] virtual Status Exchange(const Request& req,
                                        const MessageCallback& on_msg) = 0;
  // Exchange() of every request in `reqs`; `results[i]` is what Exchange()
  // would have returned for reqs[i], and a failed request costs only its own
  // answer. This default asks one after another; KernelTransport sends
  // single-reply GETs together, in one datagram, and reads their answers
  // with one call.
  virtual void ExchangeBatch(std::span<const Request> reqs,
                             const BatchCallback& on_msg,
                             std::vector<Status>& results);
};

// How an answer ends: a dump with NLMSG_DONE, a request that asked for an
// ack with the ack, a single-reply GET doit (Request::single_reply, no ack
// asked) with its one message. An error ends any of them.
enum class AnswerEnd { kDoneOrAck, kFirstMessage };

// Walks the netlink messages in `bytes` (one or more datagrams laid end to
// end): the one walk over reply bytes, for KernelTransport, ReplayTransport,
// the dcbnl datagram parser and the fuzz targets. Sets `*finished` when the
// answer ends (see AnswerEnd); messages after that are not looked at. Truncated
// or malformed framing is an error, never a crash. `expect_seq` 0 accepts any
// sequence number (replay).
[[nodiscard]] Status WalkMessages(std::span<const std::uint8_t> bytes,
                                  std::uint32_t expect_seq,
                                  const MessageCallback& on_msg, bool* finished,
                                  AnswerEnd end = AnswerEnd::kDoneOrAck);
[[nodiscard]] inline AnswerEnd EndOf(const Request& req) {
  return req.single_reply ? AnswerEnd::kFirstMessage : AnswerEnd::kDoneOrAck;
}

// Name of a command for keys and logs ("STAT_GET"); "CMD<n>" if unknown.
[[nodiscard]] std::string CmdName(std::uint16_t cmd);

}  // namespace rnic::nl
