// NetlinkTransport over a libnl-3 netlink socket, one per collector:
// NETLINK_RDMA (the way rdma-core's util/rdma_nl.c talks to the kernel) or
// NETLINK_GENERIC (ethtool) or NETLINK_ROUTE (dcbnl), Request::msg_type set.
#pragma once

#include <chrono>
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
  [[nodiscard]] static Result<std::unique_ptr<LibnlTransport>> Open(
      int protocol, std::chrono::milliseconds recv_timeout);
  ~LibnlTransport() override;
  LibnlTransport(const LibnlTransport&) = delete;
  LibnlTransport& operator=(const LibnlTransport&) = delete;

  [[nodiscard]] Status Exchange(const Request& req,
                                const MessageCallback& on_msg) override;
  void SetTap(Tap tap) { tap_ = std::move(tap); }

 private:
  explicit LibnlTransport(nl_sock* sock) : sock_(sock) {}
  void DrainUntilEnd(std::uint32_t seq);
  // One datagram into buf_: its length, or -errno (ETIMEDOUT on the receive
  // timeout).
  long Receive();
  nl_sock* sock_;
  Tap tap_;
  // Sized to the largest datagram seen; Receive() reads exactly one.
  std::vector<std::uint8_t> buf_ = std::vector<std::uint8_t>(8 * 1024);
};

}  // namespace rnic::nl
