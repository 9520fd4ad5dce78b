// NetlinkTransport over a libnl-3 netlink socket, one per collector:
// NETLINK_RDMA (the way rdma-core's util/rdma_nl.c talks to the kernel) or
// NETLINK_GENERIC (ethtool) or NETLINK_ROUTE (dcbnl), Request::msg_type set.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/netlink/transport.h"

struct nl_sock;

namespace rnic::nl {

inline constexpr int kNetlinkRdmaProtocol = 20;  // NETLINK_RDMA

class LibnlTransport final : public NetlinkTransport {
 public:
  // Receives every datagram of every reply, as read from the socket
  // (the recorder writes them to fixture files).
  using Tap =
      std::function<void(const Request&, std::span<const std::uint8_t>)>;

  // Opens and connects a NETLINK_RDMA socket. Fails on hosts without RDMA
  // netlink (ib_core not loaded: EPROTONOSUPPORT).
  [[nodiscard]] static Result<std::unique_ptr<LibnlTransport>> Open(
      std::chrono::milliseconds recv_timeout = std::chrono::seconds(5)) {
    return Open(kNetlinkRdmaProtocol, recv_timeout);
  }
  // Opens a socket of netlink protocol `protocol` (NETLINK_GENERIC, ...).
  // `read_buffer` 0: the kernel's NLMSG_GOODSIZE (tests pass a smaller one).
  [[nodiscard]] static Result<std::unique_ptr<LibnlTransport>> Open(
      int protocol, std::chrono::milliseconds recv_timeout,
      std::size_t read_buffer = 0);
  ~LibnlTransport() override;
  LibnlTransport(const LibnlTransport&) = delete;
  LibnlTransport& operator=(const LibnlTransport&) = delete;

  [[nodiscard]] Status Exchange(const Request& req,
                                const MessageCallback& on_msg) override;
  void SetTap(Tap tap) { tap_ = std::move(tap); }

 private:
  LibnlTransport(nl_sock* sock, std::size_t read_buffer)
      : sock_(sock), buf_(read_buffer) {}
  [[nodiscard]] Status ExchangeOnce(const Request& req,
                                    const MessageCallback& on_msg,
                                    bool* lost_first);
  void DrainUntilEnd(std::uint32_t seq);
  // Reads and drops every datagram queued now.
  void DrainQueued();
  // One datagram into buf_: its length, or -errno (ETIMEDOUT on the receive
  // timeout or, with MSG_DONTWAIT, an empty queue; EMSGSIZE when it was
  // larger than buf_, which then grows: the datagram is lost).
  long Receive(int flags = 0);
  // Encodes `req` into out_ with these flags and sequence number.
  void Encode(const Request& req, int flags, std::uint32_t seq);
  nl_sock* sock_;
  Tap tap_;
  // NLMSG_GOODSIZE, or the largest datagram seen if that was larger.
  std::vector<std::uint8_t> buf_;
  // The request being sent, kept across exchanges (capacity reused).
  std::vector<std::uint8_t> out_;
};

}  // namespace rnic::nl
