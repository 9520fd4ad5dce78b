#include "collectors/fabric/probe_target.h"

#include <algorithm>

namespace rnic::fabric {

Result<ProbeRequest> ParseProbeRequest(
    const std::map<std::string, std::string>& query,
    const std::vector<PeerSpec>& peers,
    const std::map<std::string, HostAddresses>& known, int default_port) {
  for (const auto& [k, v] : query) {
    if (k != "target" && k != "device" && k != "operation")
      return Error{"unknown parameter '" + k + "' (target, device, operation)"};
  }
  auto t = query.find("target");
  if (t == query.end() || t->second.empty())
    return Error{"missing target parameter"};
  auto hp = SplitHostPort(t->second);
  if (!hp) return Error{"target: " + hp.error().message};
  const auto& [host, port] = *hp;
  ProbeRequest r;
  const PeerSpec* found = nullptr;
  for (const auto& p : peers) {
    if (p.host == host) {
      found = &p;
      break;
    }
    auto k = known.find(p.host);
    if (k == known.end()) continue;
    for (const auto& a : k->second.addresses) {
      if (a.ip == host) {
        found = &p;
        r.remote_ip = host;
      }
    }
    if (found) break;
  }
  if (!found) return Error{"target " + host + " is not in the peer set"};
  const int peer_port =
      found->exchange_port != 0 ? found->exchange_port : default_port;
  if (port != 0 && port != peer_port) {
    return Error{"target " + t->second +
                 " is not in the peer set (the peer's port is " +
                 std::to_string(peer_port) + ")"};
  }
  r.peer = *found;
  if (auto d = query.find("device"); d != query.end()) {
    const std::string& dev = d->second;
    if (dev.empty() || dev.size() > 64 ||
        !std::all_of(dev.begin(), dev.end(), [](unsigned char c) {
          return std::isalnum(c) || c == '_' || c == '-' || c == '.';
        }))
      return Error{"device: not a device name"};
    r.device = dev;
  }
  if (auto o = query.find("operation"); o != query.end()) {
    if (o->second == "send") {
      r.operation = probe::Operation::kSend;
    } else if (o->second == "write") {
      r.operation = probe::Operation::kWrite;
    } else if (o->second == "read") {
      r.operation = probe::Operation::kRead;
    } else {
      return Error{"operation: must be send, write or read"};
    }
  }
  return r;
}

}  // namespace rnic::fabric
