#include "collectors/fabric/live_peers.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include "collectors/nl/cm_id_dump.h"
#include "collectors/nl/kernel_transport.h"
#include "collectors/nl/rdma_source.h"

namespace rnic::fabric {
namespace {

bool Loopback(const std::string& ip) {
  return ip.rfind("127.", 0) == 0 || ip == "::1";
}
bool Unspecified(const std::string& ip) {
  return ip == "0.0.0.0" || ip == "::";
}
// fe80::/10: reachable only with an interface scope, which neither the
// exchange nor rdma_cm's resolution is given.
bool LinkLocal6(const std::string& ip) {
  unsigned char a[16];
  return inet_pton(AF_INET6, ip.c_str(), a) == 1 && a[0] == 0xfe &&
         (a[1] & 0xc0) == 0x80;
}

// The connected IDs: what rdma_cm holds as a connection (CONNECT, set up
// or established; rdma_cm has no state of its own for established) in a
// connected port space, with a connected QP type when the ID has a QP.
bool Connected(const nl::CmIdEntry& id) {
  if (id.state != nl::kCmConnect || !id.dst) return false;
  if (id.ps != nl::kPsTcp && id.ps != nl::kPsIb) return false;
  if (!id.qp_type) return true;
  switch (*id.qp_type) {
    case 2:   // RC
    case 3:   // UC
    case 9:   // XRC_INI
    case 10:  // XRC_TGT
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<std::vector<LiveConnection>> ReadLiveConnections(
    nl::NetlinkTransport& t) {
  nl::RdmaNetlinkSource src(t);
  auto devs = src.Devices();
  if (!devs.ok()) return devs.error();
  std::vector<LiveConnection> out;
  for (const auto& d : *devs) {
    Status st = nl::DumpCmIds(t, d.index, [&](const nl::CmIdEntry& id) {
      if (!Connected(id)) return;
      LiveConnection c;
      if (id.src) {
        c.local_ip = id.src->ip;
        c.local_port = id.src->port;
      }
      c.remote_ip = id.dst->ip;
      c.remote_port = id.dst->port;
      if (id.owner.pid) c.pid = *id.owner.pid;
      out.push_back(std::move(c));
    });
    // A device removed since the list (EINVAL from the index) has no IDs.
    if (!st.ok() && st.error().errno_value != EINVAL &&
        st.error().errno_value != ENODEV)
      return st.error();
  }
  return out;
}

std::set<std::int64_t> OwnThreadIds() {
  std::set<std::int64_t> out = {static_cast<std::int64_t>(::getpid())};
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const std::string name = e.path().filename().string();
    std::int64_t tid = 0;
    auto [p, err] =
        std::from_chars(name.data(), name.data() + name.size(), tid);
    if (err == std::errc() && p == name.data() + name.size()) out.insert(tid);
  }
  return out;
}

LiveReader KernelLiveReader() {
  return []() -> Result<std::vector<LiveConnection>> {
    // A socket per dump (every refresh interval), closed after it: the
    // probe holds no netlink socket between dumps.
    auto t = nl::KernelTransport::Open();
    if (!t.ok()) return t.error();
    return ReadLiveConnections(**t);
  };
}

LiveSelection SelectLivePeers(std::span<const LiveConnection> connections,
                              const LiveExclusions& ex,
                              const std::map<std::string, std::string>& known,
                              int max_peers) {
  std::map<std::string, LivePeer> by_host;
  for (const auto& c : connections) {
    if (c.pid >= 0 && ex.own_pids.count(c.pid) > 0) continue;
    if (ex.fabric_port != 0 &&
        (c.local_port == ex.fabric_port || c.remote_port == ex.fabric_port))
      continue;
    const std::string& ip = c.remote_ip;
    if (ip.empty() || Loopback(ip) || Unspecified(ip) || LinkLocal6(ip) ||
        ex.own_ips.count(ip) > 0)
      continue;
    auto k = known.find(ip);
    const bool in_set = k != known.end();
    const std::string& host = in_set ? k->second : ip;
    auto& p = by_host[host];
    p.host = host;
    p.in_peer_set = in_set;
    ++p.connections;
  }
  LiveSelection out;
  out.found = by_host.size();
  out.peers.reserve(by_host.size());
  for (auto& [_, p] : by_host) out.peers.push_back(std::move(p));
  std::stable_sort(out.peers.begin(), out.peers.end(),
                   [](const LivePeer& a, const LivePeer& b) {
                     return a.connections > b.connections;
                   });
  if (max_peers >= 0 && out.peers.size() > static_cast<std::size_t>(max_peers))
    out.peers.resize(static_cast<std::size_t>(max_peers));
  return out;
}

LiveMerge MergeLivePeers(std::span<const std::string> live,
                         const std::set<std::string>& targets,
                         const std::set<std::string>& own_group, bool partial,
                         int max_peers) {
  LiveMerge m;
  std::vector<std::string> fresh;  // live peers the schedule does not probe
  for (const auto& h : live) {
    if (m.live.count(h) > 0) continue;
    if (targets.count(h) > 0) {
      m.live.insert(h);
    } else {
      fresh.push_back(h);
    }
  }
  // The targets a fresh live peer may replace, the last first.
  std::vector<std::string> cross;
  for (const auto& t : targets) {
    if (own_group.count(t) == 0 && m.live.count(t) == 0) cross.push_back(t);
  }
  std::size_t room;
  if (partial) {
    room = cross.size();
  } else if (max_peers <= 0) {
    room = fresh.size();
  } else {
    const auto bound = static_cast<std::size_t>(max_peers);
    room = targets.size() < bound ? bound - targets.size() : 0;
  }
  if (fresh.size() > room) fresh.resize(room);
  if (partial) {
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      m.dropped.insert(cross[cross.size() - 1 - i]);
    }
  }
  for (const auto& h : fresh) m.live.insert(h);
  for (const auto& h : live) {
    if (m.live.count(h) > 0 &&
        std::find(m.targets.begin(), m.targets.end(), h) == m.targets.end())
      m.targets.push_back(h);
  }
  for (const auto& t : targets) {
    if (m.live.count(t) == 0 && m.dropped.count(t) == 0) m.targets.push_back(t);
  }
  return m;
}

}  // namespace rnic::fabric
