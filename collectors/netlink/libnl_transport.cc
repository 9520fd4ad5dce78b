#include "collectors/netlink/libnl_transport.h"

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "collectors/netlink/attr_writer.h"
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

// The kernel's NLMSG_GOODSIZE: a page (at most 8 KiB) less skb_shared_info,
// 320 bytes on x86-64 and arm64 kernels with the default MAX_SKB_FRAGS.
// Guessed low, a larger datagram grows the buffer (Receive); guessed high,
// dump datagrams come in a larger allocation, nothing else.
std::size_t NlmsgGoodSize() {
  const long page = sysconf(_SC_PAGESIZE);
  const std::size_t p =
      page > 0 ? std::min<std::size_t>(static_cast<std::size_t>(page), 8192)
               : 4096;
  return p - 320;
}

}  // namespace

static_assert(kNetlinkRdmaProtocol == kNetlinkRdma);

Result<std::unique_ptr<LibnlTransport>> LibnlTransport::Open(
    int protocol, std::chrono::milliseconds recv_timeout,
    std::size_t read_buffer) {
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
  return std::unique_ptr<LibnlTransport>(new LibnlTransport(
      sock, read_buffer != 0 ? read_buffer : NlmsgGoodSize()));
}

LibnlTransport::~LibnlTransport() { nl_socket_free(sock_); }

void LibnlTransport::Encode(const Request& req, int flags, std::uint32_t seq) {
  out_.assign(NLMSG_HDRLEN, 0);
  auto append = [this](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
    out_.resize(NLMSG_ALIGN(out_.size()), 0);
  };
  if (!req.header.empty()) append(req.header.data(), req.header.size());
  AttrWriter attrs(out_);  // appends: the header above is aligned
  for (const auto& [type, value] : req.u32_attrs) attrs.PutU32(type, value);
  if (!req.attrs.empty()) append(req.attrs.data(), req.attrs.size());
  nlmsghdr h{};
  h.nlmsg_len = static_cast<std::uint32_t>(out_.size());
  h.nlmsg_type = req.msg_type.value_or(MsgType(req.cmd));
  h.nlmsg_flags = static_cast<std::uint16_t>(flags);
  h.nlmsg_seq = seq;
  h.nlmsg_pid = nl_socket_get_local_port(sock_);
  std::memcpy(out_.data(), &h, sizeof h);
}

Status LibnlTransport::Exchange(const Request& req,
                                const MessageCallback& on_msg) {
  // A datagram larger than the read buffer is lost when read; if it was the
  // answer's first, the request is sent once more with the buffer grown.
  for (int attempt = 0;; ++attempt) {
    bool lost_first = false;
    Status st = ExchangeOnce(req, on_msg, &lost_first);
    if (!lost_first || attempt > 0) return st;
  }
}

Status LibnlTransport::ExchangeOnce(const Request& req,
                                    const MessageCallback& on_msg,
                                    bool* lost_first) {
  // Dumps end with NLMSG_DONE; single answers are closed by an ack, so every
  // exchange has a definite end.
  const int flags = NLM_F_REQUEST | (req.dump           ? NLM_F_DUMP
                                     : req.single_reply ? 0
                                                        : NLM_F_ACK);
  // Encoded by hand into a buffer kept across requests: libnl's
  // nlmsg_alloc_simple callocs a page per message, and zeroing it was 3 %
  // of a Soft-RoCE scrape's CPU under TCG.
  const std::uint32_t seq = nl_socket_use_seq(sock_);
  Encode(req, flags, seq);
  ssize_t sent = -1;
  do {
    sent = ::send(nl_socket_get_fd(sock_), out_.data(), out_.size(), 0);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return Error{"send " + req.Key(), errno};
  bool finished = false;
  bool first = true;
  while (!finished) {
    const long n = Receive();
    if (n == -EMSGSIZE) {
      // Whatever else the kernel queued for this request is read and
      // dropped; everything it sends is queued by the time recv() returns
      // (a dump's next part is made inside recv), so this never waits.
      DrainQueued();
      *lost_first = first;
      return Error{"recv " + req.Key() + ": datagram larger than the buffer",
                   EMSGSIZE};
    }
    if (n < 0) return Error{"recv " + req.Key(), static_cast<int>(-n)};
    first = false;
    std::span<const std::uint8_t> bytes(buf_.data(),
                                        static_cast<std::size_t>(n));
    if (tap_) tap_(req, bytes);
    Status st = WalkMessages(bytes, seq, on_msg, &finished, EndOf(req));
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

long LibnlTransport::Receive(int flags) {
  // One recv per datagram, into a buffer of NLMSG_GOODSIZE: the kernel
  // remembers the largest buffer a socket ever read with (netlink_recvmsg:
  // max_recvmsg_len, up to 32 KiB) and allocates every later dump datagram
  // that large: fresh pages, zeroed, even for a 20-byte NLMSG_DONE (a
  // quarter of a scrape on 16 rxe ports when reading with 32 KiB). RDMA
  // netlink's answers fit NLMSG_GOODSIZE; a larger datagram (generic
  // netlink, another kernel's skb_shared_info) is reported by MSG_TRUNC,
  // and the buffer grows.
  const int fd = nl_socket_get_fd(sock_);
  iovec iov{buf_.data(), buf_.size()};
  sockaddr_nl peer{};
  msghdr mh{};
  for (;;) {
    mh.msg_name = &peer;
    mh.msg_namelen = sizeof(peer);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    const ssize_t n = ::recvmsg(fd, &mh, MSG_TRUNC | flags);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return -(errno == EAGAIN || errno == EWOULDBLOCK ? ETIMEDOUT : errno);
    }
    if (n == 0) return -ECONNRESET;
    // Only the kernel answers: a datagram another process sent to this
    // socket's port is not an answer.
    if (peer.nl_pid != 0) continue;
    if (static_cast<std::size_t>(n) > buf_.size()) {
      // Twice the lost one: the kernel then fills dump datagrams up to this
      // size (max_recvmsg_len), and the one lost was one message short of
      // full at most.
      buf_.resize(2 * static_cast<std::size_t>(n));
      return -EMSGSIZE;
    }
    return n;
  }
}

void LibnlTransport::DrainQueued() {
  // Until the queue is empty (ETIMEDOUT) or the socket fails: another error
  // must not spin here.
  for (;;) {
    const long n = Receive(MSG_DONTWAIT);
    if (n < 0 && n != -EMSGSIZE) return;
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
