// The RDMA netlink source: requests the kernel answers for `rdma dev`,
// `rdma link`, `rdma statistic` and `rdma resource`, and returns plain
// structs. Knows nothing of Prometheus. Every call goes through the given
// NetlinkTransport, so tests replay recorded kernel answers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic::nl {

struct DeviceInfo {
  std::uint32_t index = 0;
  std::string name;
  std::uint32_t num_ports = 0;  // GET reports the last port number
  std::optional<std::uint8_t> node_type;
  std::string fw_version;  // empty when the device has none
  std::optional<std::uint64_t> node_guid;
  std::string protocol;  // "roce", "ib", "iw", ... (Linux >= 5.x)
};

struct PortInfo {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::uint32_t port = 0;
  std::optional<std::uint8_t> state;       // enum ib_port_state (4 = ACTIVE)
  std::optional<std::uint8_t> phys_state;  // enum ib_port_phys_state
  std::optional<std::uint32_t> netdev_index;
  std::string netdev_name;
};

struct HwCounter {
  std::string name;
  std::uint64_t value = 0;
};

struct PortCounters {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::uint32_t port = 0;
  std::vector<HwCounter> counters;
};

// One optional counter of a port (STAT_GET_STATUS).
struct OptionalCounter {
  std::string name;
  std::uint32_t index = 0;
  bool enabled = false;
};

// Who created a resource: a user process (pid in the caller's PID
// namespace) or a kernel module (kern_name, e.g. "ib_core").
struct Owner {
  std::optional<std::uint32_t> pid;
  std::string_view kern_name;  // valid during the callback only
};

// A counter bound to QPs (auto or manual mode), from the STAT_GET QP dump.
struct BoundCounter {
  std::uint32_t port = 0;
  std::uint32_t id = 0;
  std::optional<std::uint8_t> qp_type;
  Owner owner;
  std::uint32_t num_qps = 0;
  std::vector<HwCounter> counters;
};

struct ResSummary {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::vector<std::pair<std::string, std::uint64_t>> entries;  // name, curr
};

enum class ResKind { kQp, kCq, kMr, kPd, kCtx };

// One tracked object of a resource dump; fields not sent for a kind stay
// unset.
struct ResEntry {
  ResKind kind = ResKind::kQp;
  std::uint32_t port = 0;  // QPs: 0 until the QP is bound to a port
  std::optional<std::uint8_t> qp_type;
  std::optional<std::uint8_t> qp_state;
  std::optional<std::uint32_t> cqe;    // CQ depth
  std::optional<std::uint64_t> mrlen;  // MR length in bytes
  Owner owner;
};

[[nodiscard]] const char* ResKindName(ResKind kind);

class RdmaNetlinkSource {
 public:
  explicit RdmaNetlinkSource(NetlinkTransport& transport) : t_(transport) {}

  // RDMA_NLDEV_CMD_GET dump: every device the caller's net namespace sees.
  [[nodiscard]] Result<std::vector<DeviceInfo>> Devices();
  // RDMA_NLDEV_CMD_PORT_GET of one device's ports: a doit of port 1 when
  // `num_ports` (what GET reports) is 1, else a dump.
  [[nodiscard]] Result<std::vector<PortInfo>> Ports(std::uint32_t dev_index,
                                                    std::uint32_t num_ports);
  // RDMA_NLDEV_CMD_STAT_GET of one port: all its hw counters (as
  // `rdma statistic show link DEV/PORT`).
  [[nodiscard]] Result<PortCounters> PortStats(std::uint32_t dev_index,
                                               std::uint32_t port);
  // Ports() of several devices, asked together (KernelTransport sends the
  // one-port devices' doits in one datagram): `fn(i, status, ports)` sees
  // device i's answer, in order.
  struct DevPorts {
    std::uint32_t dev_index = 0;
    std::uint32_t num_ports = 0;
  };
  using PortsFn = std::function<void(std::size_t, const Status&,
                                     const std::vector<PortInfo>&)>;
  void PortsBatch(std::span<const DevPorts> devs, const PortsFn& fn);
  // PortStats() of several ports, asked together: `fn(i, name, value)` sees
  // port i's counters, the name valid during the call, nothing allocated per
  // counter; `results[i]` is port i's outcome (counters of a port whose
  // answer then failed may have been seen).
  struct PortRef {
    std::uint32_t dev_index = 0;
    std::uint32_t port = 0;
  };
  using BatchCounterFn =
      std::function<void(std::size_t, std::string_view, std::uint64_t)>;
  void PortStatsBatch(std::span<const PortRef> ports, const BatchCounterFn& fn,
                      std::vector<Status>& results);
  // RDMA_NLDEV_CMD_STAT_GET_STATUS (Linux >= 5.16): the optional counters.
  [[nodiscard]] Result<std::vector<OptionalCounter>> CounterStatus(
      std::uint32_t dev_index, std::uint32_t port);
  // STAT_GET dump with STAT_RES = RES_QP: counters bound to QPs of a port.
  [[nodiscard]] Status BoundCounters(
      std::uint32_t dev_index, std::uint32_t port,
      const std::function<void(const BoundCounter&)>& fn);
  // RDMA_NLDEV_CMD_RES_GET dump: object counts of every device.
  [[nodiscard]] Result<std::vector<ResSummary>> ResourceSummary();
  // RES_{QP,CQ,MR,PD,CTX}_GET dump of one device, streamed: `fn` sees each
  // object once, nothing is kept.
  [[nodiscard]] Status DumpResources(
      ResKind kind, std::uint32_t dev_index,
      const std::function<void(const ResEntry&)>& fn);
  // RDMA_NLDEV_CMD_STAT_SET in manual mode (`rdma statistic qp bind`): binds
  // QP `qpn` of a port to a new counter (`counter_id` unset) or to an
  // existing one, and returns the counter id the kernel answered. Needs
  // CAP_NET_ADMIN (EPERM) and a driver with per-QP counters (rxe: ENOMEM).
  [[nodiscard]] Result<std::uint32_t> BindQpToCounter(
      std::uint32_t dev_index, std::uint32_t port, std::uint32_t qpn,
      std::optional<std::uint32_t> counter_id);
  // RDMA_NLDEV_CMD_STAT_GET of one bound counter (STAT_RES = RES_QP and its
  // STAT_COUNTER_ID): that counter's hw counters.
  [[nodiscard]] Result<std::vector<HwCounter>> CounterValues(
      std::uint32_t dev_index, std::uint32_t port, std::uint32_t counter_id);

 private:
  NetlinkTransport& t_;
};

}  // namespace rnic::nl
