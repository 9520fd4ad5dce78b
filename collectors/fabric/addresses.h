// This host's RDMA addresses per device, as served on GET /fabric/addresses
// and read from a peer's exporter, and the pairing of local with remote
// addresses that decides which device pairs are probed.
#pragma once

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/fabric/fabric_config.h"

namespace rnic::fabric {

struct DeviceAddress {
  std::string device;  // RDMA device, e.g. mlx5_0
  std::string ip;      // address of the device's netdev
  int prefix = 32;     // its prefix length
  bool operator==(const DeviceAddress&) const = default;
};

struct HostAddresses {
  int port = kDefaultPort;  // the responder's rdma_cm port
  // Random per exporter process: a host that finds its own id in a peer's
  // answer is looking at itself (a DNS peer set lists every node).
  std::string id;
  std::vector<DeviceAddress> addresses;
  // The host's group in the partial mesh (its ToR or rack) when set by
  // --collector.fabric.group; empty: peers use its first address's subnet.
  std::string group;
  bool operator==(const HostAddresses&) const = default;
};

// {"version":1,"id":"5f0c...","port":18530,"group":"tor-7","devices":
// {"mlx5_0":[{"ip":"10.0.3.1","prefix":24}]}} ("id" optional: 1 to 32 hex
// digits; "group" optional: see ValidGroup)
[[nodiscard]] std::string AddressesToJson(const HostAddresses& a);
// The same (read with yaml-cpp, a JSON superset), every field checked:
// a peer's answer is input from the network.
[[nodiscard]] Result<HostAddresses> ParseAddressesJson(std::string_view text);

// A group name as announced: 1 to 128 of [A-Za-z0-9._:/-] (a label value,
// a subnet such as 10.0.3.0/24).
[[nodiscard]] bool ValidGroup(std::string_view group);
// a's subnet, "10.0.3.0/24" for 10.0.3.5/24; "" for no address.
[[nodiscard]] std::string SubnetOf(const DeviceAddress& a);

// Whether `b` lies in a's subnet (a.ip/a.prefix); both IPv4 or both IPv6.
[[nodiscard]] bool SameSubnet(const DeviceAddress& a, const DeviceAddress& b);

struct ProbePair {
  DeviceAddress local;
  DeviceAddress remote;
  bool operator==(const ProbePair&) const = default;
  auto operator<=>(const ProbePair& o) const {
    return std::tie(local.device, local.ip, remote.device, remote.ip) <=>
           std::tie(o.local.device, o.local.ip, o.remote.device, o.remote.ip);
  }
};

// The pairs to probe: with kSubnet those whose addresses share the local
// address's subnet, with kAll every pair of the same family. A pair of one
// address with itself is never probed (loopback never leaves the adapter).
[[nodiscard]] std::vector<ProbePair> PairAddresses(
    const std::vector<DeviceAddress>& local,
    const std::vector<DeviceAddress>& remote, Pairing pairing);

// (netdev, ip, prefix) as getifaddrs lists them.
struct InterfaceAddress {
  std::string netdev;
  std::string ip;
  int prefix = 32;
};
// The addresses of the devices whose netdevs are listed in `device_netdevs`
// (device -> netdev), sorted.
[[nodiscard]] std::vector<DeviceAddress> MatchInterfaces(
    const std::vector<std::pair<std::string, std::string>>& device_netdevs,
    const std::vector<InterfaceAddress>& interfaces);
// getifaddrs(): IPv4 and global IPv6 addresses of every interface.
[[nodiscard]] std::vector<InterfaceAddress> ReadInterfaces();

}  // namespace rnic::fabric
