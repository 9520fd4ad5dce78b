#include "collectors/nl/cm_id_dump.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstring>

#include "collectors/nl/attr_parser.h"
#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl {

const char* CmStateName(std::uint8_t state) {
  static constexpr const char* kNames[] = {
      "IDLE",           "ADDR_QUERY",     "ADDR_RESOLVED", "ROUTE_QUERY",
      "ROUTE_RESOLVED", "CONNECT",        "DISCONNECT",    "ADDR_BOUND",
      "LISTEN",         "DEVICE_REMOVAL", "DESTROYING"};
  return state < std::size(kNames) ? kNames[state] : nullptr;
}

std::optional<CmAddress> ParseCmAddress(std::span<const std::uint8_t> p) {
  // sa_family_t in host order, then the port in network order, as every
  // struct sockaddr_in*; offsets written out so no struct is read from an
  // unaligned attribute payload.
  if (p.size() < 4) return std::nullopt;
  std::uint16_t family = 0;
  std::memcpy(&family, p.data(), sizeof family);
  const std::uint16_t port = static_cast<std::uint16_t>((p[2] << 8) | p[3]);
  char text[INET6_ADDRSTRLEN] = {};
  if (family == AF_INET) {
    if (p.size() < 8) return std::nullopt;
    if (inet_ntop(AF_INET, p.data() + 4, text, sizeof text) == nullptr)
      return std::nullopt;
    return CmAddress{text, port};
  }
  if (family == AF_INET6) {
    constexpr std::size_t kAddr = 8;  // after family, port, flowinfo
    if (p.size() < kAddr + 16) return std::nullopt;
    const std::uint8_t* a = p.data() + kAddr;
    static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0,    0,
                                                 0, 0, 0, 0, 0xff, 0xff};
    // An IPv4 peer of an AF_INET6 ID: the address hosts announce is v4.
    const bool mapped = std::memcmp(a, kMapped, sizeof kMapped) == 0;
    if (inet_ntop(mapped ? AF_INET : AF_INET6, mapped ? a + 12 : a, text,
                  sizeof text) == nullptr)
      return std::nullopt;
    return CmAddress{text, port};
  }
  return std::nullopt;
}

Status DumpCmIds(NetlinkTransport& t, std::uint32_t dev_index,
                 const std::function<void(const CmIdEntry&)>& fn) {
  Attrs a;
  Attrs e;
  CmIdEntry id;
  return t.Exchange(
      Request{kCmdResCmIdGet, true, {{kAttrDevIndex, dev_index}}},
      [&](const nlmsghdr& m) -> Status {
        Status pst = a.ParseMessage(m);
        if (!pst.ok()) return pst;
        auto table = a.Nested(kAttrResCmId);
        if (!table) return Status::Ok();  // a message without IDs
        const std::uint32_t dev = a.U32(kAttrDevIndex).value_or(dev_index);
        return ForEachNested(
            *table, [&](std::uint16_t type, AttrView v) -> Status {
              if (type != kAttrResCmIdEntry) return Status::Ok();
              Status est = e.ParseNested(v);
              if (!est.ok()) return est;
              auto state = e.U8(kAttrResState);
              auto ps = e.U32(kAttrResPs);
              if (!state || !ps) {
                return Error{"netlink: malformed cm_id entry", EBADMSG};
              }
              id = CmIdEntry{};
              id.dev_index = dev;
              id.port = e.U32(kAttrPortIndex).value_or(0);
              id.lqpn = e.U32(kAttrResLqpn);
              id.qp_type = e.U8(kAttrResType);
              id.ps = *ps;
              id.state = *state;
              if (auto s = e.Binary(kAttrResSrcAddr)) {
                id.src = ParseCmAddress({s->data, s->len});
              }
              if (auto d = e.Binary(kAttrResDstAddr)) {
                id.dst = ParseCmAddress({d->data, d->len});
              }
              id.owner.pid = e.U32(kAttrResPid);
              if (auto k = e.Str(kAttrResKernName)) id.owner.kern_name = *k;
              fn(id);
              return Status::Ok();
            });
      });
}

}  // namespace rnic::nl
