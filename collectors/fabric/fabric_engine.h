// The fabric probe's initiator: one thread that, every interval, refreshes
// the peer set, learns each peer's RDMA addresses from its exporter (GET
// /fabric/addresses), keeps one RC connection per probed device pair
// (reconnecting with exponential backoff) and runs the configured
// ping-pongs on each, paced by the probe's CpuPacer. It also owns the
// responder and answers the two HTTP endpoints.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collectors/common/log_once.h"
#include "collectors/fabric/addresses.h"
#include "collectors/fabric/exchange_client.h"
#include "collectors/fabric/fabric_config.h"
#include "collectors/fabric/fabric_stats.h"
#include "collectors/fabric/live_peers.h"
#include "collectors/fabric/mesh_schedule.h"
#include "collectors/fabric/peer_sources.h"
#include "collectors/fabric/probe_target.h"
#include "collectors/fabric/rc_link.h"
#include "collectors/fabric/responder.h"
#include "collectors/http_endpoints.h"

namespace rnic::fabric {

// The selected local devices' addresses, read again every round.
using LocalReader = std::function<std::vector<DeviceAddress>()>;

struct EngineDeps {
  LocalReader local;
  Resolver resolver;
  HttpGet http_get;
  // The names this host may have in the peer set (host name, addresses):
  // the first peer named so is this host in the partial mesh.
  std::function<std::set<std::string>()> self_names;
  // This host's group (--collector.fabric.group), announced in
  // /fabric/addresses; empty: its first RDMA address's subnet.
  std::string group;
  // This host's established rdma_cm connections (fabric.live_peers); unset:
  // no live peers.
  LiveReader live;
};

// The peer label value "self": probes between this host's own devices.
inline constexpr char kSelf[] = "self";

class FabricEngine {
 public:
  FabricEngine(FabricConfig cfg, int port, int tos,
               std::shared_ptr<FabricStats> stats, EngineDeps deps);
  ~FabricEngine();
  FabricEngine(const FabricEngine&) = delete;
  FabricEngine& operator=(const FabricEngine&) = delete;

  void Start();
  void Stop();

  // GET /fabric/addresses.
  [[nodiscard]] EndpointReply Addresses() const;
  // GET /probe: one round to the target, on fresh connections.
  [[nodiscard]] EndpointReply ProbeOnce(const EndpointRequest& req);

 private:
  struct LinkKey {
    PairKey pair;
    std::string local_ip;
    std::string remote_ip;
    int port = 0;
    auto operator<=>(const LinkKey&) const = default;
  };
  struct LinkState {
    std::string group;
    std::unique_ptr<RcLink> link;
    std::chrono::milliseconds backoff{0};
    std::chrono::steady_clock::time_point next_attempt{};
  };
  struct Remote {
    HostAddresses addresses;
    bool known = false;
    std::chrono::steady_clock::time_point next_fetch{};
  };

  // This period's share of the partial mesh: the peers probed, and those
  // whose addresses are fetched (probed or probing this host, this period
  // and the next, so a new period starts with its addresses known).
  struct MeshView {
    std::string self;   // this host as the peer set names it, or kSelf
    std::string group;  // its group
    std::set<std::string> targets;
    std::set<std::string> exchange;
    bool partial = false;
    // Partial mesh only: every target -> its group (their pairs rotate, so
    // they count per group), and the targets kept per pair too.
    std::map<std::string, std::string> grouped;
    std::set<std::string> detail;
    // Live peers among the targets (probed first), in rank order.
    std::vector<std::string> live;
  };

  void Loop();
  void Round();
  [[nodiscard]] MeshView Plan(const std::vector<DeviceAddress>& local);
  // Reads the live connections every refresh interval and merges the live
  // peers into this period's targets (live_peers.h).
  void MergeLive(std::chrono::steady_clock::time_point now,
                 const std::vector<DeviceAddress>& local, MeshView& mesh);
  // The peer set and the live peers outside it (callers hold mu_).
  [[nodiscard]] std::vector<PeerSpec> AllPeersLocked() const;
  void Exchange(std::chrono::steady_clock::time_point now,
                const std::set<std::string>& hosts);
  [[nodiscard]] std::map<LinkKey, std::string> WantedLinks(
      const std::vector<DeviceAddress>& local,
      const std::set<std::string>& targets);
  // This host's group unless labelled: --collector.fabric.group, else its
  // first address's subnet (which peers work out from its addresses).
  [[nodiscard]] std::string OwnGroup(
      const std::vector<DeviceAddress>& local) const;
  void Probe(const LinkKey& key, LinkState& s);
  [[nodiscard]] ConnectSpec Spec(const LinkKey& key) const;
  [[nodiscard]] std::uint32_t OpBits() const;

  FabricConfig cfg_;
  int port_;
  int tos_;
  std::string id_;  // HostAddresses::id of this process
  std::shared_ptr<FabricStats> stats_;
  EngineDeps deps_;
  PeerSources sources_;
  Responder responder_;

  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex wake_mu_;
  std::condition_variable wake_;

  mutable std::mutex mu_;  // what the HTTP endpoints read
  std::vector<DeviceAddress> local_;
  std::vector<PeerSpec> peers_;
  // Live peers outside the peer set, named by their address.
  std::vector<PeerSpec> live_specs_;
  std::map<std::string, Remote> remotes_;

  std::map<LinkKey, LinkState> links_;  // engine thread only
  // Engine thread only: the schedule of the last peer set and the peers
  // exchanged with (their failure counters leave with them).
  std::vector<MeshMember> mesh_members_;
  std::unique_ptr<MeshSchedule> mesh_;
  std::set<std::string> exchanging_;
  // Engine thread only: the connections of the last good live dump.
  std::vector<LiveConnection> live_conns_;
  std::set<std::int64_t> live_own_tids_;  // at the dump of live_conns_
  std::chrono::steady_clock::time_point next_live_{};
  // One /probe round at a time; a request that finds one running waits for
  // it up to kProbeQueueWait (Prometheus scrapes several /probe targets of
  // one exporter at overlapping moments: refusing at once failed whichever
  // came second, every time when their scrape offsets were close).
  std::timed_mutex on_demand_;
  LogOnce log_{"fabric"};
};

}  // namespace rnic::fabric
