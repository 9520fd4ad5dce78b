// The rdma_cm IDs of an RDMA device: the RDMA_NLDEV_CMD_RES_CM_ID_GET dump
// (what `rdma resource show cm_id` prints). Each ID carries its rdma_cm
// state, port space, QP and the source and destination addresses: the one
// resource dump that names the remote end of a connection (the QP dump
// has the remote QP number, never the remote host).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "collectors/common/result.h"
#include "collectors/nl/rdma_source.h"
#include "collectors/nl/transport.h"

namespace rnic::nl {

// enum rdma_cm_state of the kernel (drivers/infiniband/core/cma_priv.h, in
// RES_STATE): the numbers iproute2 names too. An ID stays in kCmConnect from
// rdma_connect() or the connect request until the disconnect: the state of
// an established connection.
enum CmState : std::uint8_t {
  kCmIdle = 0,
  kCmAddrQuery = 1,
  kCmAddrResolved = 2,
  kCmRouteQuery = 3,
  kCmRouteResolved = 4,
  kCmConnect = 5,
  kCmDisconnect = 6,
  kCmAddrBound = 7,
  kCmListen = 8,
  kCmDeviceRemoval = 9,
  kCmDestroying = 10,
};
[[nodiscard]] const char* CmStateName(std::uint8_t state);

// enum rdma_ucm_port_space (rdma/rdma_user_cm.h, in RES_PS).
inline constexpr std::uint32_t kPsIpoib = 0x0002;
inline constexpr std::uint32_t kPsTcp = 0x0106;  // RC (and iWARP)
inline constexpr std::uint32_t kPsUdp = 0x0111;  // UD
inline constexpr std::uint32_t kPsIb = 0x013f;   // any QP type

// An address of RES_SRC_ADDR / RES_DST_ADDR (struct
// __kernel_sockaddr_storage, AF_INET or AF_INET6), as text: "10.0.3.1",
// "fd00::1"; IPv4-mapped IPv6 addresses as IPv4.
struct CmAddress {
  std::string ip;
  std::uint16_t port = 0;  // the rdma_cm port (host order)
  bool operator==(const CmAddress&) const = default;
};
// Nothing for another family or a payload too short for its family.
[[nodiscard]] std::optional<CmAddress> ParseCmAddress(
    std::span<const std::uint8_t> payload);

struct CmIdEntry {
  std::uint32_t dev_index = 0;
  std::uint32_t port = 0;  // 0: not bound to a port yet
  std::optional<std::uint32_t> lqpn;
  std::optional<std::uint8_t> qp_type;  // with lqpn only
  std::uint32_t ps = 0;
  std::uint8_t state = 0;
  std::optional<CmAddress> src;
  std::optional<CmAddress> dst;
  Owner owner;
};

// RES_CM_ID_GET dump of one device, streamed: `fn` sees each ID once. An
// entry without state or port space is malformed (iproute2 refuses it
// too); an address of an unknown family is left unset.
[[nodiscard]] Status DumpCmIds(NetlinkTransport& t, std::uint32_t dev_index,
                               const std::function<void(const CmIdEntry&)>& fn);

}  // namespace rnic::nl
