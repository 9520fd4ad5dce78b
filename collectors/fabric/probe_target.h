// /probe?target=HOST[:PORT]&device=...&operation=... checked against the
// peer set before anything is probed: the endpoint is never an open relay.
// HOST is a peer's host (as the peer set names it) or one of the RDMA
// addresses that peer announced; PORT, when given, must be the peer's
// exporter port in the peer set.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/fabric/addresses.h"
#include "collectors/fabric/fabric_config.h"

namespace rnic::fabric {

struct ProbeRequest {
  PeerSpec peer;          // the peer the target names
  std::string remote_ip;  // set when the target is an RDMA address
  std::string device;     // local device name; empty: every device
  std::optional<probe::Operation> operation;  // empty: the configured ones
};

// `known`: the announced addresses by peer host. `default_port`: the
// exchange port of peers that name none.
[[nodiscard]] Result<ProbeRequest> ParseProbeRequest(
    const std::map<std::string, std::string>& query,
    const std::vector<PeerSpec>& peers,
    const std::map<std::string, HostAddresses>& known, int default_port);

}  // namespace rnic::fabric
