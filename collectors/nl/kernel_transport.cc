#include "collectors/nl/kernel_transport.h"

#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "collectors/nl/attr_writer.h"
#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl {
namespace {

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

const MessageCallback& IgnoreMessage() {
  static const MessageCallback ignore = [](const nlmsghdr&) {
    return Status::Ok();
  };
  return ignore;
}

}  // namespace

static_assert(kNetlinkRdmaProtocol == kNetlinkRdma);

Result<std::unique_ptr<KernelTransport>> KernelTransport::Open(
    int protocol, std::chrono::milliseconds recv_timeout,
    std::size_t read_buffer) {
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
  if (fd < 0) return Error{"socket " + ProtocolName(protocol), errno};
  // The transport owns the descriptor from here on (closes it on failure).
  std::unique_ptr<KernelTransport> t(new KernelTransport(
      fd, read_buffer != 0 ? read_buffer : NlmsgGoodSize()));
  // Port id 0: the kernel assigns a free one, read back for our requests.
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) !=
      0) {
    return Error{"bind " + ProtocolName(protocol), errno};
  }
  socklen_t len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0 ||
      len != sizeof local) {
    return Error{"getsockname " + ProtocolName(protocol), errno};
  }
  t->port_ = local.nl_pid;
  // A deep receive queue: dumps of many QPs come in many datagrams.
  const int rcvbuf = 1 << 20;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  // A reply always comes; the timeout only guards against a wedged kernel.
  timeval tv{};
  tv.tv_sec = recv_timeout.count() / 1000;
  tv.tv_usec = (recv_timeout.count() % 1000) * 1000;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return t;
}

KernelTransport::~KernelTransport() { ::close(fd_); }

void KernelTransport::Encode(const Request& req, int flags, std::uint32_t seq) {
  out_.clear();
  EncodeAppend(req, flags, seq);
}

void KernelTransport::EncodeAppend(const Request& req, int flags,
                                   std::uint32_t seq) {
  const std::size_t at = out_.size();  // aligned: every message ends so
  out_.resize(at + NLMSG_HDRLEN, 0);
  auto append = [this](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
    out_.resize(NLMSG_ALIGN(out_.size()), 0);
  };
  if (!req.header.empty()) append(req.header.data(), req.header.size());
  AttrWriter attrs(out_);  // appends: the header above is aligned
  for (const auto& [type, value] : req.u32_attrs) attrs.PutU32(type, value);
  if (!req.attrs.empty()) append(req.attrs.data(), req.attrs.size());
  out_.resize(NLMSG_ALIGN(out_.size()), 0);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<std::uint32_t>(out_.size() - at);
  h.nlmsg_type = req.msg_type.value_or(MsgType(req.cmd));
  h.nlmsg_flags = static_cast<std::uint16_t>(flags);
  h.nlmsg_seq = seq;
  h.nlmsg_pid = port_;
  std::memcpy(out_.data() + at, &h, sizeof h);
}

Status KernelTransport::Send() {
  ++sends_;
  ssize_t sent = -1;
  do {
    sent = ::send(fd_, out_.data(), out_.size(), 0);
  } while (sent < 0 && errno == EINTR);
  return sent < 0 ? Status(Error{"send", errno}) : Status::Ok();
}

Status KernelTransport::Exchange(const Request& req,
                                 const MessageCallback& on_msg) {
  // A datagram larger than the read buffer is lost when read; if it was the
  // answer's first, the request is sent once more with the buffer grown.
  for (int attempt = 0;; ++attempt) {
    bool lost_first = false;
    Status st = ExchangeOnce(req, on_msg, &lost_first);
    if (!lost_first || attempt > 0) return st;
  }
}

Status KernelTransport::ExchangeOnce(const Request& req,
                                     const MessageCallback& on_msg,
                                     bool* lost_first) {
  // Dumps end with NLMSG_DONE; single answers are closed by an ack, so every
  // exchange has a definite end.
  const int flags = NLM_F_REQUEST | (req.dump           ? NLM_F_DUMP
                                     : req.single_reply ? 0
                                                        : NLM_F_ACK);
  // Encoded into a buffer kept across requests: no allocation, nothing
  // zeroed per request.
  const std::uint32_t seq = seq_++;
  Encode(req, flags, seq);
  if (Status st = Send(); !st.ok()) {
    return Error{"send " + req.Key(), st.error().errno_value};
  }
  // Datagrams asked for per read: a doit's one answer, an answer and its
  // ack, or as many of a dump's as are ready (its data and its NLMSG_DONE
  // at least: one read instead of two per dump).
  const unsigned want = req.dump ? kSlots : req.single_reply ? 1 : 2;
  bool finished = false;
  bool first = true;
  while (!finished) {
    const long got = ReceiveMany(want, 0);
    if (got < 0) return Error{"recv " + req.Key(), static_cast<int>(-got)};
    for (long j = 0; j < got; ++j) {
      first = false;
      const std::span<const std::uint8_t> bytes = Datagram(j);
      if (tap_) tap_(req, bytes);
      Status st = WalkMessages(bytes, seq, on_msg, &finished, EndOf(req));
      if (!st.ok()) {
        // The callback or the framing failed mid-answer: read to its end
        // so the next request does not read stale replies (late replies
        // are also skipped by sequence number).
        for (long k = j + 1; k < got && !finished; ++k) {
          (void)WalkMessages(Datagram(k), seq, IgnoreMessage(), &finished);
        }
        if (!finished && overflow_ == 0) DrainUntilEnd(seq);
        if (overflow_ != 0) DrainQueued();
        return Error{req.Key() + ": " + st.error().message,
                     st.error().errno_value};
      }
      if (finished) break;
    }
    if (overflow_ != 0 && !finished) {
      // Whatever else the kernel queued for this request is read and
      // dropped; everything it sends is queued by the time recv() returns
      // (a dump's next part is made inside recv), so this never waits.
      DrainQueued();
      *lost_first = first;
      return Error{"recv " + req.Key() + ": datagram larger than the buffer",
                   EMSGSIZE};
    }
  }
  return Status::Ok();
}

void KernelTransport::ExchangeBatch(std::span<const Request> reqs,
                                    const BatchCallback& on_msg,
                                    std::vector<Status>& results) {
  results.assign(reqs.size(), Status::Ok());
  std::size_t i = 0;
  while (i < reqs.size()) {
    // Single-reply GET doits go together; the kernel answers each message
    // of a datagram in turn, an error to one only costs that one.
    std::size_t n = 0;
    while (i + n < reqs.size() && n < kSlots && reqs[i + n].single_reply &&
           !reqs[i + n].dump) {
      ++n;
    }
    if (n < 2) {
      results[i] =
          Exchange(reqs[i], [&](const nlmsghdr& m) { return on_msg(i, m); });
      ++i;
      continue;
    }
    ExchangeTogether(reqs.subspan(i, n), i, on_msg, results);
    i += n;
  }
}

void KernelTransport::ExchangeTogether(std::span<const Request> reqs,
                                       std::size_t base,
                                       const BatchCallback& on_msg,
                                       std::vector<Status>& results) {
  static_assert(kSlots <= 32, "pending requests are bits of a uint32");
  const std::size_t n = reqs.size();
  out_.clear();
  std::uint32_t first_seq = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t seq = seq_++;
    if (k == 0) first_seq = seq;
    EncodeAppend(reqs[k], NLM_F_REQUEST, seq);
  }
  if (Status st = Send(); !st.ok()) {
    for (std::size_t k = 0; k < n; ++k) {
      results[base + k] =
          Error{"send " + reqs[k].Key(), st.error().errno_value};
    }
    return;
  }
  std::uint32_t pending = n == 32 ? ~0u : (1u << n) - 1;
  auto fail_pending = [&](const std::string& what, int err) {
    for (std::size_t k = 0; k < n; ++k) {
      if (pending & (1u << k)) {
        results[base + k] = Error{what + " " + reqs[k].Key(), err};
      }
    }
    pending = 0;
  };
  while (pending != 0) {
    const long got =
        ReceiveMany(static_cast<unsigned>(std::popcount(pending)), 0);
    if (got < 0) {
      fail_pending("recv", static_cast<int>(-got));
      return;
    }
    for (long j = 0; j < got; ++j) {
      // The kernel unicasts each answer in a datagram of its own: the first
      // header's sequence number names the request, and WalkMessages checks
      // the framing as for any other answer.
      const std::span<const std::uint8_t> bytes = Datagram(j);
      if (bytes.size() < sizeof(nlmsghdr)) continue;
      nlmsghdr h;
      std::memcpy(&h, bytes.data(), sizeof h);
      const std::uint32_t k = h.nlmsg_seq - first_seq;
      if (k >= n || !(pending & (1u << k))) continue;  // a late reply
      if (tap_) tap_(reqs[k], bytes);
      bool finished = false;
      Status st = WalkMessages(
          bytes, h.nlmsg_seq,
          [&](const nlmsghdr& m) { return on_msg(base + k, m); }, &finished,
          AnswerEnd::kFirstMessage);
      if (!st.ok()) {
        results[base + k] = Error{reqs[k].Key() + ": " + st.error().message,
                                  st.error().errno_value};
      }
      if (finished || !st.ok()) pending &= ~(1u << k);
    }
    if (overflow_ != 0) {
      // An answer was larger than a slot and is lost (the slots have grown):
      // the unanswered are asked again, one by one.
      DrainQueued();
      for (std::size_t k = 0; k < n; ++k) {
        if (!(pending & (1u << k))) continue;
        results[base + k] = Exchange(
            reqs[k], [&](const nlmsghdr& m) { return on_msg(base + k, m); });
      }
      return;
    }
  }
}

long KernelTransport::ReceiveMany(unsigned want, int flags) {
  // Each slot is NLMSG_GOODSIZE: the kernel remembers the largest buffer a
  // socket ever read with (netlink_recvmsg: max_recvmsg_len, up to 32 KiB)
  // and allocates every later dump datagram that large: fresh pages, zeroed,
  // even for a 20-byte NLMSG_DONE (a quarter of a scrape on 16 rxe ports
  // when reading with 32 KiB). RDMA netlink's answers fit NLMSG_GOODSIZE; a
  // larger datagram (generic netlink, another kernel's skb_shared_info) is
  // reported by MSG_TRUNC, and the slots grow.
  //
  // recvmmsg with MSG_WAITFORONE: waits for the first datagram only, then
  // takes what is queued. A dump's next part is made inside each read, so
  // one call reads a small dump and its NLMSG_DONE.
  want = std::clamp(want, 1u, kSlots);
  overflow_ = 0;
  layout_ = slot_size_;
  if (slots_cap_ < kSlots * layout_) {
    // Not zeroed: a page counts in RSS only once a datagram is read into it
    // (most reads fill the first slot or two).
    slots_cap_ = kSlots * layout_;
    slots_.reset(new std::uint8_t[slots_cap_]);
  }
  const int fd = fd_;
  for (;;) {
    for (unsigned j = 0; j < want; ++j) {
      iov_[j] = iovec{slots_.get() + j * layout_, layout_};
      mmsg_[j] = mmsghdr{};
      mmsg_[j].msg_hdr.msg_name = &peers_[j];
      mmsg_[j].msg_hdr.msg_namelen = sizeof(peers_[j]);
      mmsg_[j].msg_hdr.msg_iov = &iov_[j];
      mmsg_[j].msg_hdr.msg_iovlen = 1;
    }
    ++reads_;
    const int n = ::recvmmsg(fd, mmsg_.data(), want,
                             MSG_TRUNC | MSG_WAITFORONE | flags, nullptr);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return -(errno == EAGAIN || errno == EWOULDBLOCK ? ETIMEDOUT : errno);
    }
    if (n == 0) return -ECONNRESET;
    // Keep the kernel's datagrams, in order, up to a truncated one (lost:
    // the slots grow to twice its size, and the kernel then fills dump
    // datagrams up to that size; it was one message short of full at
    // most). A datagram another process sent to this socket's port is not
    // an answer.
    long kept = 0;
    for (int j = 0; j < n; ++j) {
      const std::size_t len = mmsg_[j].msg_len;
      if (peers_[j].nl_pid != 0) continue;
      if (len > layout_) {
        overflow_ = len;
        break;
      }
      if (kept != j) {
        std::memmove(slots_.get() + kept * layout_, slots_.get() + j * layout_,
                     len);
      }
      lens_[kept++] = len;
    }
    // The next read uses the larger slots; the kept datagrams stay where
    // they are until then.
    // (Aligned: messages must start 4-byte aligned in every slot.)
    if (overflow_ != 0) slot_size_ = NLMSG_ALIGN(2 * overflow_);
    if (kept == 0 && overflow_ == 0) continue;  // only others' datagrams
    return kept;
  }
}

std::span<const std::uint8_t> KernelTransport::Datagram(long j) const {
  return {slots_.get() + static_cast<std::size_t>(j) * layout_,
          lens_[static_cast<std::size_t>(j)]};
}

void KernelTransport::DrainQueued() {
  // Until the queue is empty (ETIMEDOUT) or the socket fails: another error
  // must not spin here.
  for (;;) {
    const long n = ReceiveMany(kSlots, MSG_DONTWAIT);
    if (n < 0) return;
  }
}

void KernelTransport::DrainUntilEnd(std::uint32_t seq) {
  bool finished = false;
  while (!finished) {
    const long n = ReceiveMany(kSlots, 0);
    if (n < 0) return;
    for (long j = 0; j < n && !finished; ++j) {
      Status st = WalkMessages(Datagram(j), seq, IgnoreMessage(), &finished);
      if (!st.ok()) return;
    }
  }
}

}  // namespace rnic::nl
