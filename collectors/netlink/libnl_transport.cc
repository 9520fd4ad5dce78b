#include "collectors/netlink/libnl_transport.h"

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "collectors/netlink/rdma_nl_uapi.h"

namespace rnic::nl {
namespace {

// libnl reports its own error codes; map the ones that matter to errno.
int LibnlToErrno(int nlerr) {
  switch (nlerr < 0 ? -nlerr : nlerr) {
    case NLE_PERM:
      return EPERM;
    case NLE_NOACCESS:
      return EACCES;
    case NLE_PROTO_MISMATCH:
    case NLE_AF_NOSUPPORT:
      return EPROTONOSUPPORT;
    case NLE_OPNOTSUPP:
      return EOPNOTSUPP;
    case NLE_NOMEM:
      return ENOMEM;
    case NLE_AGAIN:
      return EAGAIN;
    case NLE_INTR:
      return EINTR;
    case NLE_INVAL:
      return EINVAL;
    case NLE_NODEV:
      return ENODEV;
    case NLE_OBJ_NOTFOUND:
      return ENOENT;
    default:
      return EIO;
  }
}

std::string ProtocolName(int protocol) {
  switch (protocol) {
    case kNetlinkRdma:
      return "NETLINK_RDMA";
    case NETLINK_GENERIC:
      return "NETLINK_GENERIC";
    case NETLINK_ROUTE:
      return "NETLINK_ROUTE";
    default:
      return "netlink protocol " + std::to_string(protocol);
  }
}

}  // namespace

static_assert(kNetlinkRdmaProtocol == kNetlinkRdma);

Result<std::unique_ptr<LibnlTransport>> LibnlTransport::Open(
    int protocol, std::chrono::milliseconds recv_timeout) {
  nl_sock* sock = nl_socket_alloc();
  if (sock == nullptr) return Error{"nl_socket_alloc", ENOMEM};
  errno = 0;
  int rc = nl_connect(sock, protocol);
  if (rc < 0) {
    // nl_connect keeps errno of the failing socket()/bind() call.
    const int err = errno != 0 ? errno : LibnlToErrno(rc);
    nl_socket_free(sock);
    return Error{"connect " + ProtocolName(protocol), err};
  }
  // A deep receive queue: dumps of many QPs come in many datagrams.
  // We set NLM_F_ACK ourselves (single answers only): an ack requested on a
  // dump is not sent by every kernel, so the flags must be exactly ours.
  nl_socket_disable_auto_ack(sock);
  (void)nl_socket_set_buffer_size(sock, 1 << 20, 0);
  // A reply always comes; the timeout only guards against a wedged kernel.
  timeval tv{};
  tv.tv_sec = recv_timeout.count() / 1000;
  tv.tv_usec = (recv_timeout.count() % 1000) * 1000;
  (void)setsockopt(nl_socket_get_fd(sock), SOL_SOCKET, SO_RCVTIMEO, &tv,
                   sizeof(tv));
  return std::unique_ptr<LibnlTransport>(new LibnlTransport(sock));
}

LibnlTransport::~LibnlTransport() { nl_socket_free(sock_); }

Status LibnlTransport::Exchange(const Request& req,
                                const MessageCallback& on_msg) {
  // Dumps end with NLMSG_DONE; single answers are closed by an ack, so every
  // exchange has a definite end.
  const int flags = NLM_F_REQUEST | (req.dump           ? NLM_F_DUMP
                                     : req.single_reply ? 0
                                                        : NLM_F_ACK);
  nl_msg* msg =
      nlmsg_alloc_simple(req.msg_type.value_or(MsgType(req.cmd)), flags);
  if (msg == nullptr) return Error{"nlmsg_alloc", ENOMEM};
  if (!req.header.empty() &&
      nlmsg_append(msg, const_cast<std::uint8_t*>(req.header.data()),
                   req.header.size(), NLMSG_ALIGNTO) < 0) {
    nlmsg_free(msg);
    return Error{"nlmsg_append header", ENOMEM};
  }
  for (const auto& [type, value] : req.u32_attrs) {
    if (nla_put_u32(msg, type, value) < 0) {
      nlmsg_free(msg);
      return Error{"nla_put_u32", ENOMEM};
    }
  }
  if (!req.attrs.empty() &&
      nlmsg_append(msg, const_cast<std::uint8_t*>(req.attrs.data()),
                   req.attrs.size(), NLMSG_ALIGNTO) < 0) {
    nlmsg_free(msg);
    return Error{"nlmsg_append attributes", ENOMEM};
  }
  const int sent = nl_send_auto(sock_, msg);
  const std::uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;
  nlmsg_free(msg);
  if (sent < 0) {
    return Error{"send " + req.Key(), LibnlToErrno(sent)};
  }
  // A single-reply request ends with its one answer: noted by a wrapper
  // built once per request, not per datagram.
  bool replied = false;
  MessageCallback counting;
  if (req.single_reply) {
    counting = [&](const nlmsghdr& m) {
      replied = true;
      return on_msg(m);
    };
  }
  const MessageCallback& cb = req.single_reply ? counting : on_msg;
  bool finished = false;
  while (!finished) {
    const long n = Receive();
    if (n < 0) return Error{"recv " + req.Key(), static_cast<int>(-n)};
    std::span<const std::uint8_t> bytes(buf_.data(),
                                        static_cast<std::size_t>(n));
    if (tap_) tap_(req, bytes);
    Status st = WalkMessages(bytes, seq, cb, &finished);
    if (replied) finished = true;
    if (!st.ok()) {
      if (!finished) {
        // The callback or the framing failed mid-answer: drain the rest so
        // the next request does not read stale replies. Late replies are
        // also skipped by sequence number.
        DrainUntilEnd(seq);
      }
      return Error{req.Key() + ": " + st.error().message,
                   st.error().errno_value};
    }
  }
  return Status::Ok();
}

long LibnlTransport::Receive() {
  // Peek at the next datagram's length, then read exactly that much. The
  // kernel remembers the largest length a socket ever read with
  // (netlink_recvmsg: max_recvmsg_len, up to 32 KiB) and allocates every
  // later dump datagram that large: fresh pages, zeroed, even for a 20-byte
  // NLMSG_DONE. Reading with one big buffer made that a quarter of a scrape
  // on 16 rxe ports; a zero-length peek costs a syscall and no copy.
  const int fd = nl_socket_get_fd(sock_);
  auto fail = [](int err) -> long {
    return -(err == EAGAIN || err == EWOULDBLOCK ? ETIMEDOUT : err);
  };
  ssize_t size = 0;
  do {
    size = ::recv(fd, buf_.data(), 0, MSG_PEEK | MSG_TRUNC);
  } while (size < 0 && errno == EINTR);
  if (size < 0) return fail(errno);
  if (size == 0) return -ECONNRESET;
  if (static_cast<std::size_t>(size) > buf_.size()) {
    buf_.resize(static_cast<std::size_t>(size));
  }
  iovec iov{buf_.data(), static_cast<std::size_t>(size)};
  sockaddr_nl peer{};
  msghdr mh{};
  mh.msg_name = &peer;
  mh.msg_namelen = sizeof(peer);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  for (;;) {
    const ssize_t n = ::recvmsg(fd, &mh, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(errno);
    if (mh.msg_flags & MSG_TRUNC) return -EMSGSIZE;  // cannot happen
    if (n == 0) return -ECONNRESET;
    return n;
  }
}

void LibnlTransport::DrainUntilEnd(std::uint32_t seq) {
  const MessageCallback ignore = [](const nlmsghdr&) { return Status::Ok(); };
  bool finished = false;
  while (!finished) {
    const long n = Receive();
    if (n < 0) return;
    Status st = WalkMessages(
        std::span<const std::uint8_t>(buf_.data(), static_cast<std::size_t>(n)),
        seq, ignore, &finished);
    if (!st.ok()) return;
  }
}

}  // namespace rnic::nl
