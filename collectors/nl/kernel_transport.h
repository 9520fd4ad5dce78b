// NetlinkTransport over a netlink socket to the kernel, one per collector:
// NETLINK_RDMA (the way rdma-core's util/rdma_nl.c talks to the kernel) or
// NETLINK_GENERIC (ethtool) or NETLINK_ROUTE (dcbnl), Request::msg_type set.
// Requests are encoded into one kept buffer and sent with send(2); answers
// are read with recvmmsg(2) and walked by WalkMessages (collectors/netlink
// README: why not libnl-3).
#pragma once

#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic::nl {

inline constexpr int kNetlinkRdmaProtocol = 20;  // NETLINK_RDMA

class KernelTransport final : public NetlinkTransport {
 public:
  // Receives every datagram of every reply, as read from the socket
  // (the recorder writes them to fixture files).
  using Tap =
      std::function<void(const Request&, std::span<const std::uint8_t>)>;

  // Opens and binds a NETLINK_RDMA socket. Fails on hosts without RDMA
  // netlink (ib_core not loaded: EPROTONOSUPPORT).
  [[nodiscard]] static Result<std::unique_ptr<KernelTransport>> Open(
      std::chrono::milliseconds recv_timeout = std::chrono::seconds(5)) {
    return Open(kNetlinkRdmaProtocol, recv_timeout);
  }
  // Opens a socket of netlink protocol `protocol` (NETLINK_GENERIC, ...).
  // `read_buffer` 0: the kernel's NLMSG_GOODSIZE (tests pass a smaller one).
  [[nodiscard]] static Result<std::unique_ptr<KernelTransport>> Open(
      int protocol, std::chrono::milliseconds recv_timeout,
      std::size_t read_buffer = 0);
  ~KernelTransport() override;
  KernelTransport(const KernelTransport&) = delete;
  KernelTransport& operator=(const KernelTransport&) = delete;

  [[nodiscard]] Status Exchange(const Request& req,
                                const MessageCallback& on_msg) override;
  void ExchangeBatch(std::span<const Request> reqs, const BatchCallback& on_msg,
                     std::vector<Status>& results) override;
  void SetTap(Tap tap) { tap_ = std::move(tap); }

  // Datagrams read at most per call (recvmmsg), and requests sent together.
  static constexpr unsigned kSlots = 8;
  // Datagrams sent and reads (recvmmsg calls) so far: tests and benchmarks.
  [[nodiscard]] std::uint64_t sends() const { return sends_; }
  [[nodiscard]] std::uint64_t reads() const { return reads_; }

 private:
  KernelTransport(int fd, std::size_t read_buffer)
      : fd_(fd), slot_size_(NLMSG_ALIGN(read_buffer)) {}
  [[nodiscard]] Status ExchangeOnce(const Request& req,
                                    const MessageCallback& on_msg,
                                    bool* lost_first);
  // Up to kSlots single-reply GETs in one datagram; answers in any order.
  void ExchangeTogether(std::span<const Request> reqs, std::size_t base,
                        const BatchCallback& on_msg,
                        std::vector<Status>& results);
  void DrainUntilEnd(std::uint32_t seq);
  // Reads and drops every datagram queued now.
  void DrainQueued();
  // Reads up to `want` datagrams (waiting for the first only): how many
  // were kept, Datagram(0..n-1), or -errno (ETIMEDOUT on the receive
  // timeout or, with MSG_DONTWAIT, an empty queue). A datagram larger than
  // a slot ends the read and is lost: overflow_ says so, and the slots
  // grow for the next read.
  long ReceiveMany(unsigned want, int flags);
  [[nodiscard]] std::span<const std::uint8_t> Datagram(long j) const;
  // Encodes `req` into out_ (Encode) or after what out_ holds.
  void Encode(const Request& req, int flags, std::uint32_t seq);
  void EncodeAppend(const Request& req, int flags, std::uint32_t seq);
  // Sends out_ as one datagram.
  [[nodiscard]] Status Send();
  int fd_;
  std::uint32_t port_ = 0;  // the port id the kernel bound us to
  // Sequence number of the next request; answers are matched by it.
  std::uint32_t seq_ = 1;
  Tap tap_;
  // NLMSG_GOODSIZE, or twice the largest datagram lost if that was larger.
  std::size_t slot_size_;
  std::size_t layout_ = 0;    // slot size of the datagrams read last
  std::size_t overflow_ = 0;  // size of the datagram the last read lost
  // kSlots slots, allocated at the first read.
  std::unique_ptr<std::uint8_t[]> slots_;
  std::size_t slots_cap_ = 0;
  std::array<mmsghdr, kSlots> mmsg_{};
  std::array<iovec, kSlots> iov_{};
  std::array<sockaddr_nl, kSlots> peers_{};
  std::array<std::size_t, kSlots> lens_{};
  std::uint64_t sends_ = 0;
  std::uint64_t reads_ = 0;
  // The request(s) being sent, kept across exchanges (capacity reused).
  std::vector<std::uint8_t> out_;
};

}  // namespace rnic::nl
