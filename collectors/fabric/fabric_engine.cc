#include "collectors/fabric/fabric_engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

#include "collectors/fabric/fabric_families.h"
#include "collectors/probing/cpu_pacer.h"
#include "collectors/probing/round_schedule.h"

namespace rnic::fabric {
namespace {

using Clock = std::chrono::steady_clock;

double UnixNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The address exchange is retried this much sooner than a full refresh when
// it failed (a peer whose exporter restarts is found again quickly).
constexpr std::chrono::milliseconds kExchangeRetry{5000};
constexpr std::chrono::milliseconds kExchangeTimeout{2000};
// How long a /probe request waits for a round already running: a round is
// tens to hundreds of milliseconds, scrape timeouts are seconds.
constexpr std::chrono::milliseconds kProbeQueueWait{1000};

// A peer's group from what it announced: its group, else its first
// address's subnet (by device name); "" when it announced nothing.
std::string AnnouncedGroup(const HostAddresses& a) {
  if (!a.group.empty()) return a.group;
  if (a.addresses.empty()) return "";
  return SubnetOf(*std::min_element(
      a.addresses.begin(), a.addresses.end(), [](const auto& x, const auto& y) {
        return std::tie(x.device, x.ip) < std::tie(y.device, y.ip);
      }));
}

}  // namespace

FabricEngine::FabricEngine(FabricConfig cfg, int port, int tos,
                           std::shared_ptr<FabricStats> stats, EngineDeps deps)
    : cfg_(std::move(cfg)),
      port_(port),
      tos_(tos),
      id_([] {
        std::random_device rd;
        char buf[17];
        std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
        return std::string(buf);
      }()),
      stats_(std::move(stats)),
      deps_(std::move(deps)),
      sources_(cfg_, deps_.resolver),
      responder_(port, cfg_.max_connections, tos, cfg_.ack_timeout, stats_) {}

FabricEngine::~FabricEngine() { Stop(); }

void FabricEngine::Start() {
  responder_.Start();
  thread_ = std::thread([this] { Loop(); });
}

void FabricEngine::Stop() {
  {
    std::lock_guard g(wake_mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  links_.clear();
  responder_.Stop();
}

std::uint32_t FabricEngine::OpBits() const {
  std::uint32_t bits = 0;
  for (auto op : cfg_.operations) {
    if (op == probe::Operation::kSend) bits |= kOpSend;
    if (op == probe::Operation::kWrite) bits |= kOpWrite;
    if (op == probe::Operation::kRead) bits |= kOpRead;
  }
  return bits;
}

void FabricEngine::Loop() {
  // As the loopback probe paces its rounds (probe_engine.cc).
  const double share = cfg_.cpu_budget_percent / 100.0;
  probe::CpuPacer pacer(share, share * 10.0, 30.0);
  probe::RoundSchedule schedule(cfg_.interval);
  double cpu_last = probe::ThreadCpuSeconds();
  double total_last = stats_->CpuSeconds();
  auto wall_last = Clock::now();
  while (!stop_) {
    const auto start = Clock::now();
    Round();
    const double cpu = probe::ThreadCpuSeconds();
    stats_->AddCpuSeconds(cpu - cpu_last);
    cpu_last = cpu;
    // The budget covers the responder too: what peers cost this host slows
    // its own rounds, so in a mesh where every host does the same the
    // whole probe stays within fabric.cpu_budget_percent.
    const double total = stats_->CpuSeconds();
    const auto now = Clock::now();
    const auto pace =
        pacer.AfterRound(std::chrono::duration<double>(now - wall_last).count(),
                         total - total_last);
    total_last = total;
    wall_last = now;
    auto next = start + schedule.NextGap();
    if (now + pace > next) {
      stats_->AddBudgetDelay(
          std::chrono::duration<double>(now + pace - next).count());
      next = now + pace;
    }
    std::unique_lock lk(wake_mu_);
    wake_.wait_until(lk, next, [this] { return stop_.load(); });
  }
}

void FabricEngine::Exchange(Clock::time_point now,
                            const std::set<std::string>& hosts) {
  std::vector<PeerSpec> peers;
  {
    std::lock_guard g(mu_);
    for (const auto& p : AllPeersLocked()) {
      if (hosts.count(p.host) > 0) peers.push_back(p);
    }
  }
  for (const auto& host : exchanging_) {
    if (hosts.count(host) == 0) stats_->ForgetPeer(host);
  }
  exchanging_ = hosts;
  for (const auto& p : peers) {
    Remote snapshot;
    {
      std::lock_guard g(mu_);
      snapshot = remotes_[p.host];
    }
    if (now < snapshot.next_fetch) continue;
    const int port =
        p.exchange_port != 0 ? p.exchange_port : cfg_.exchange_port;
    auto body =
        deps_.http_get(p.host, port, "/fabric/addresses", kExchangeTimeout);
    Result<HostAddresses> parsed =
        body ? ParseAddressesJson(*body) : Result<HostAddresses>(body.error());
    std::lock_guard g(mu_);
    auto& r = remotes_[p.host];
    if (!parsed) {
      stats_->RecordExchangeFailure(p.host);
      log_.Log(spdlog::level::warn, "exchange " + p.host,
               "address exchange with peer failed", parsed.error());
      r.next_fetch = now + std::min(kExchangeRetry, cfg_.refresh);
      continue;
    }
    log_.Clear("exchange " + p.host);
    r.addresses = std::move(*parsed);
    r.known = true;
    r.next_fetch = now + cfg_.refresh;
  }
}

std::string FabricEngine::OwnGroup(
    const std::vector<DeviceAddress>& local) const {
  if (!deps_.group.empty()) return deps_.group;
  return local.empty() ? "" : SubnetOf(local.front());
}

FabricEngine::MeshView FabricEngine::Plan(
    const std::vector<DeviceAddress>& local) {
  const std::set<std::string> names =
      deps_.self_names ? deps_.self_names() : std::set<std::string>{};
  std::vector<MeshMember> members;
  std::string self;
  std::string self_label;
  {
    std::lock_guard g(mu_);
    members.reserve(peers_.size() + 1);
    for (const auto& p : peers_) {
      // A peer's group: its label, else what it announced, else its first
      // address's subnet; "" until its addresses are known.
      std::string group;
      const auto l = p.labels.find(cfg_.mesh.group_label);
      if (l != p.labels.end()) {
        group = l->second;
      } else if (auto r = remotes_.find(p.host);
                 r != remotes_.end() && r->second.known) {
        group = AnnouncedGroup(r->second.addresses);
      }
      if (self.empty() && names.count(p.host) > 0) {
        self = p.host;
        if (l != p.labels.end()) self_label = l->second;
      }
      members.push_back({p.host, group});
    }
  }
  // This host as others see it: its label in the peer set, else its
  // --collector.fabric.group, else its subnet. One not in the peer set
  // still gets a share of the mesh.
  const std::string own = self_label.empty() ? OwnGroup(local) : self_label;
  if (self.empty()) {
    self = kSelf;
    members.push_back({self, own});
  } else {
    for (auto& m : members) {
      if (m.host == self) m.group = own;
    }
  }
  if (!mesh_ || members != mesh_members_) {
    mesh_members_ = std::move(members);
    mesh_ = std::make_unique<MeshSchedule>(
        mesh_members_,
        MeshBounds{cfg_.mesh.max_peers, cfg_.mesh.representatives,
                   cfg_.max_connections});
  }
  const auto period =
      MeshPeriod(std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count(),
                 cfg_.mesh.rotation.count());
  MeshView v;
  v.self = self;
  v.group = own;
  if (mesh_->Full()) {
    // Every peer, as without a mesh: this host is told from a peer by the
    // id it announces, not by name (two exporters may share an address).
    for (const auto& m : mesh_members_) {
      if (m.host == kSelf) continue;
      v.targets.insert(m.host);
      v.exchange.insert(m.host);
    }
    return v;
  }
  v.partial = true;
  for (const auto& h : mesh_->Targets(self, period)) v.targets.insert(h);
  for (const auto& h : mesh_->Detail(self, cfg_.mesh.detail_peers)) {
    if (v.targets.count(h) > 0) v.detail.insert(h);
  }
  for (const auto& m : mesh_members_) {
    if (v.targets.count(m.host) > 0) v.grouped.emplace(m.host, m.group);
  }
  for (auto n : {period, period + 1}) {
    for (const auto& h : mesh_->Targets(self, n)) v.exchange.insert(h);
    for (const auto& h : mesh_->Sources(self, n)) v.exchange.insert(h);
  }
  // Peers of no known group (no label, never exchanged with: a DNS peer
  // set) are asked for their addresses, max_peers a round, so the
  // schedule settles on the real groups in minutes, not in as many
  // periods as it takes the mesh to reach them.
  {
    const auto now = Clock::now();
    std::lock_guard g(mu_);
    int budget = cfg_.mesh.max_peers;
    for (const auto& m : mesh_members_) {
      if (budget <= 0) break;
      if (!m.group.empty() || m.host == self) continue;
      auto r = remotes_.find(m.host);
      if (r != remotes_.end() && now < r->second.next_fetch) continue;
      v.exchange.insert(m.host);
      --budget;
    }
  }
  v.targets.erase(kSelf);
  v.exchange.erase(kSelf);
  return v;
}

std::map<FabricEngine::LinkKey, std::string> FabricEngine::WantedLinks(
    const std::vector<DeviceAddress>& local,
    const std::set<std::string>& targets) {
  std::map<LinkKey, std::string> out;
  std::set<PairKey> taken;  // one link per device pair, the first address
  auto add = [&](const std::string& peer, const std::vector<ProbePair>& pairs,
                 int port, const std::string& group) {
    for (const auto& p : pairs) {
      PairKey pk{p.local.device, peer, p.remote.device};
      if (!taken.insert(pk).second) continue;
      out.emplace(LinkKey{pk, p.local.ip, p.remote.ip, port}, group);
    }
  };
  std::lock_guard g(mu_);
  for (const auto& p : AllPeersLocked()) {
    if (targets.count(p.host) == 0) continue;
    auto it = remotes_.find(p.host);
    if (it == remotes_.end() || !it->second.known) continue;
    if (it->second.addresses.id == id_) continue;  // this host itself
    std::string group;
    if (!cfg_.group_by.empty()) {
      auto l = p.labels.find(cfg_.group_by);
      group = l == p.labels.end() ? "" : l->second;
    }
    add(p.host,
        PairAddresses(local, it->second.addresses.addresses, cfg_.pairing),
        it->second.addresses.port, group);
  }
  if (cfg_.intra_host) {
    std::vector<ProbePair> self;
    for (const auto& p : PairAddresses(local, local, cfg_.pairing)) {
      // Two addresses of one device: traffic that never leaves the adapter.
      if (p.local.device != p.remote.device) self.push_back(p);
    }
    add(kSelf, self, port_, kSelf);
  }
  return out;
}

std::vector<PeerSpec> FabricEngine::AllPeersLocked() const {
  std::vector<PeerSpec> all = peers_;
  all.insert(all.end(), live_specs_.begin(), live_specs_.end());
  return all;
}

void FabricEngine::MergeLive(Clock::time_point now,
                             const std::vector<DeviceAddress>& local,
                             MeshView& mesh) {
  if (!deps_.live || !cfg_.live_peers.enabled) return;
  if (now >= next_live_) {
    next_live_ = now + cfg_.refresh;
    auto conns = deps_.live();
    if (!conns) {
      // This source only: the last good list stays, the probe goes on.
      stats_->RecordLiveDumpFailure();
      log_.Log(spdlog::level::warn, "live",
               "live peers: dump of this host's rdma_cm connections failed",
               conns.error());
    } else {
      log_.Clear("live");
      live_conns_ = std::move(*conns);
      // The threads that own this process's IDs are those alive at the dump.
      live_own_tids_ = OwnThreadIds();
    }
  }
  LiveExclusions ex;
  ex.own_pids = live_own_tids_;
  ex.fabric_port = port_;
  if (deps_.self_names) ex.own_ips = deps_.self_names();
  for (const auto& a : local) ex.own_ips.insert(a.ip);
  // An address names a peer of the peer set when it is the peer's host or
  // one of the RDMA addresses it announced.
  std::map<std::string, std::string> known;
  LiveSelection sel;
  {
    std::lock_guard g(mu_);
    for (const auto& p : peers_) {
      known.emplace(p.host, p.host);
      auto r = remotes_.find(p.host);
      if (r == remotes_.end() || !r->second.known) continue;
      for (const auto& a : r->second.addresses.addresses)
        known.emplace(a.ip, p.host);
    }
    // A live peer outside the peer set is one host too, whichever of its
    // announced addresses (rails) the connections go to: the first ranked
    // name takes them all.
    for (const auto& p : live_specs_) {
      auto r = remotes_.find(p.host);
      if (r == remotes_.end() || !r->second.known) continue;
      for (const auto& a : r->second.addresses.addresses)
        known.emplace(a.ip, p.host);
    }
    sel = SelectLivePeers(live_conns_, ex, known, cfg_.live_peers.max_peers);
  }
  std::vector<std::string> ranked;
  for (const auto& p : sel.peers) ranked.push_back(p.host);
  std::set<std::string> own;
  if (mesh.partial) {
    for (const auto& [h, grp] : mesh.grouped) {
      if (grp == mesh.group) own.insert(h);
    }
  }
  const LiveMerge m = MergeLivePeers(ranked, mesh.targets, own, mesh.partial,
                                     cfg_.mesh.max_peers);
  std::vector<PeerSpec> specs;
  {
    std::lock_guard g(mu_);
    for (const auto& p : sel.peers) {
      const bool in_set =
          std::any_of(peers_.begin(), peers_.end(),
                      [&](const PeerSpec& x) { return x.host == p.host; });
      if (!in_set && m.live.count(p.host) > 0) specs.push_back({p.host, 0, {}});
    }
  }
  {
    std::lock_guard g(mu_);
    // A live peer outside the peer set that went away leaves with its
    // address and exchange series (its pairs leave with the targets).
    for (const auto& old : live_specs_) {
      const bool kept = std::any_of(specs.begin(), specs.end(), [&](auto& n) {
        return n.host == old.host;
      });
      const bool in_set =
          std::any_of(peers_.begin(), peers_.end(),
                      [&](const PeerSpec& p) { return p.host == old.host; });
      if (!kept && !in_set) {
        remotes_.erase(old.host);
        stats_->ForgetPeer(old.host);
      }
    }
    live_specs_ = std::move(specs);
    for (const auto& h : m.dropped) {
      mesh.grouped.erase(h);
      mesh.detail.erase(h);
    }
    for (const auto& h : m.targets) {
      if (m.live.count(h) == 0) continue;
      mesh.live.push_back(h);
      mesh.exchange.insert(h);
      if (!mesh.partial) continue;
      // In a partial mesh a live peer counts in its group and keeps
      // per-pair counters (no histograms), as the own group's detail peers.
      std::string grp;
      if (auto c = mesh.grouped.find(h); c != mesh.grouped.end()) {
        grp = c->second;
      } else if (auto mm = std::find_if(
                     mesh_members_.begin(), mesh_members_.end(),
                     [&](const MeshMember& x) { return x.host == h; });
                 mm != mesh_members_.end()) {
        grp = mm->group;
      } else if (auto r = remotes_.find(h); r != remotes_.end()) {
        grp = AnnouncedGroup(r->second.addresses);
      }
      mesh.grouped[h] = grp;
      mesh.detail.insert(h);
    }
  }
  mesh.targets = std::set<std::string>(m.targets.begin(), m.targets.end());
  stats_->SetLivePeers(sel.found, m.live.size());
}

void FabricEngine::Round() {
  const auto now = Clock::now();
  sources_.Refresh(now);
  auto local = deps_.local();
  {
    std::lock_guard g(mu_);
    local_ = local;
    peers_ = sources_.peers();
    std::set<std::string> hosts;
    for (const auto& p : AllPeersLocked()) hosts.insert(p.host);
    for (auto it = remotes_.begin(); it != remotes_.end();) {
      if (hosts.count(it->first) == 0) {
        stats_->ForgetPeer(it->first);
        it = remotes_.erase(it);
      } else {
        ++it;
      }
    }
  }
  responder_.SetAddresses(local);
  MeshView mesh = Plan(local);
  MergeLive(now, local, mesh);
  Exchange(now, mesh.exchange);
  // Who may connect to the responder: the peers' management addresses and
  // the RDMA addresses they announced (kept from earlier periods, and
  // fetched ahead for the peers that probe this host), and this host's own
  // for intra-host probes (any peer, not only the schedule's sources: a
  // /probe round comes from anywhere in the peer set). How many:
  // max_connections per device, in a partial mesh less the device's own
  // outgoing connections, which leaves room for the schedule's sources
  // (the schedule plans both ways within 7/8 of the bound).
  std::set<std::string> allowed;
  {
    std::lock_guard g(mu_);
    for (const auto& p : AllPeersLocked()) {
      allowed.insert(p.host);
      auto it = remotes_.find(p.host);
      if (it == remotes_.end()) continue;
      for (const auto& a : it->second.addresses.addresses) allowed.insert(a.ip);
    }
  }
  if (cfg_.intra_host) {
    for (const auto& a : local) allowed.insert(a.ip);
  }
  responder_.SetAllowed(std::move(allowed));

  const auto wanted = WantedLinks(local, mesh.targets);
  std::map<std::string, int> limits;
  if (mesh.partial) {
    for (const auto& a : local) limits[a.device] = cfg_.max_connections;
    for (const auto& [key, _] : wanted) {
      if (key.pair.peer != kSelf) --limits[key.pair.device];
    }
  }
  responder_.SetLimits(std::move(limits));
  for (auto it = links_.begin(); it != links_.end();) {
    if (wanted.count(it->first) == 0) {
      stats_->ForgetPair(it->first.pair);
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
  {
    std::lock_guard g(mu_);
    stats_->SetPeers(peers_.size(), wanted.size());
  }
  stats_->SetScheduledPeers(mesh.targets.size());
  std::map<std::string, std::string> peer_groups;
  for (const auto& m : mesh_members_) {
    // The peers with per-pair series: every peer of a full mesh, the
    // detail peers of a partial one.
    if (mesh.targets.count(m.host) > 0 &&
        (!mesh.partial || mesh.detail.count(m.host) > 0))
      peer_groups.emplace(m.host, m.group);
  }
  // Live peers outside the peer set (per pair in either mesh).
  for (const auto& h : mesh.live) {
    if (auto c = mesh.grouped.find(h); c != mesh.grouped.end()) {
      peer_groups.emplace(h, c->second);
    } else {
      std::lock_guard g(mu_);
      auto r = remotes_.find(h);
      peer_groups.emplace(
          h, r != remotes_.end() ? AnnouncedGroup(r->second.addresses) : "");
    }
  }
  stats_->SetMesh(mesh.self, mesh.group, peer_groups);
  std::map<PairKey, FabricStats::GroupedPair> grouped;
  for (const auto& [key, _] : wanted) {
    auto c = mesh.grouped.find(key.pair.peer);
    if (c == mesh.grouped.end()) continue;
    grouped.emplace(key.pair,
                    FabricStats::GroupedPair{c->second, c->second == mesh.group,
                                             mesh.detail.count(c->first) > 0});
  }
  stats_->SetGrouped(std::move(grouped));
  // The live peers' pairs first (the pairs real traffic crosses), then the
  // rest.
  const std::set<std::string> live(mesh.live.begin(), mesh.live.end());
  for (const bool first : {true, false}) {
    for (const auto& [key, group] : wanted) {
      if (stop_) return;
      if ((live.count(key.pair.peer) > 0) != first) continue;
      auto& s = links_[key];
      s.group = group;
      Probe(key, s);
    }
  }
}

ConnectSpec FabricEngine::Spec(const LinkKey& key) const {
  ConnectSpec spec;
  spec.local_ip = key.local_ip;
  spec.remote_ip = key.remote_ip;
  spec.port = key.port;
  spec.tos = tos_;
  spec.ack_timeout = cfg_.ack_timeout;
  spec.ops = OpBits();
  spec.max_size = cfg_.MaxSize();
  spec.timeout = cfg_.connect_timeout;
  return spec;
}

void FabricEngine::Probe(const LinkKey& key, LinkState& s) {
  const auto now = Clock::now();
  auto not_connected = [&] {
    for (auto op : cfg_.operations)
      stats_->RecordProbes(key.pair, op, "not_connected");
    stats_->SetPeerUp(key.pair, false);
  };
  if (s.link && !s.link->Alive()) s.link.reset();
  if (!s.link) {
    if (now < s.next_attempt) return not_connected();
    ConnectFailure failure;
    s.link = RcLink::Connect(Spec(key), failure);
    if (!s.link) {
      stats_->RecordConnectFailure(key.pair, failure.event);
      log_.Log(spdlog::level::info,
               "connect " + key.local_ip + ">" + key.remote_ip,
               "fabric connect failed",
               {{"device", key.pair.device},
                {"peer", key.pair.peer},
                {"remote", key.remote_ip},
                {"event", failure.event},
                {"detail", failure.detail}});
      s.backoff = s.backoff.count() == 0
                      ? cfg_.backoff_initial
                      : std::min(s.backoff * 2, cfg_.backoff_max);
      s.next_attempt = Clock::now() + s.backoff;
      return not_connected();
    }
    log_.Clear("connect " + key.local_ip + ">" + key.remote_ip);
    s.backoff = std::chrono::milliseconds(0);
    stats_->RecordConnected(key.pair, UnixNow());
  }
  // A ping that failed counts as that operation's probe; true: it came back.
  auto answered = [&](probe::Operation op, const PingResult& r) {
    if (r.kind == PingResult::Kind::kOk) return true;
    if (r.kind == PingResult::Kind::kTimeout) {
      stats_->RecordProbes(key.pair, op, "timeout");
    } else {
      stats_->RecordCompletionError(key.pair, op, r.status);
      stats_->RecordProbes(key.pair, op, "completion_error");
    }
    return false;
  };
  const auto first = cfg_.operations.front();
  bool ok = answered(
      first, s.link->WarmUp(first, cfg_.sizes.front(), cfg_.op_timeout));
  for (auto op : cfg_.operations) {
    if (!ok) break;
    for (auto size : cfg_.sizes) {
      std::vector<double> rtts;
      rtts.reserve(static_cast<std::size_t>(cfg_.iterations));
      for (int i = 0; i < cfg_.iterations && ok; ++i) {
        const auto r = s.link->Ping(op, size, cfg_.op_timeout);
        ok = answered(op, r);
        if (ok) rtts.push_back(r.seconds);
      }
      if (!rtts.empty()) {
        stats_->RecordRtts(key.pair, s.group, op, size, rtts);
        stats_->RecordProbes(key.pair, op, "ok", rtts.size());
      }
      if (!ok) break;
    }
  }
  stats_->SetPeerUp(key.pair, ok);
  // A failed link is in an unknown state: connect again next round.
  if (!ok) s.link.reset();
}

EndpointReply FabricEngine::Addresses() const {
  HostAddresses a;
  a.port = port_;
  a.id = id_;
  {
    std::lock_guard g(mu_);
    a.addresses = local_;
  }
  // Only a group given by flag: the subnet every peer works out itself,
  // and exporters that predate the key refuse an answer that has it.
  a.group = deps_.group;
  EndpointReply r;
  r.content_type = "application/json";
  r.body = AddressesToJson(a);
  return r;
}

EndpointReply FabricEngine::ProbeOnce(const EndpointRequest& req) {
  EndpointReply reply;
  if (!req.query_ok) {
    reply.status = 400;
    reply.body = "bad query string\n";
    return reply;
  }
  std::vector<PeerSpec> peers;
  std::map<std::string, HostAddresses> known;
  std::vector<DeviceAddress> local;
  {
    std::lock_guard g(mu_);
    peers = peers_;
    local = local_;
    for (const auto& [h, r] : remotes_) {
      if (r.known) known[h] = r.addresses;
    }
  }
  auto target = ParseProbeRequest(req.query, peers, known, cfg_.exchange_port);
  if (!target) {
    reply.status = 400;
    reply.body = target.error().message + "\n";
    return reply;
  }
  std::unique_lock busy(on_demand_, std::defer_lock);
  if (!busy.try_lock_for(kProbeQueueWait)) {
    reply.status = 503;
    reply.body = "another /probe round is still running\n";
    return reply;
  }
  const auto start = Clock::now();
  HostAddresses remote;
  if (auto it = known.find(target->peer.host); it != known.end()) {
    remote = it->second;
  } else {
    const int port = target->peer.exchange_port != 0
                         ? target->peer.exchange_port
                         : cfg_.exchange_port;
    auto body = deps_.http_get(target->peer.host, port, "/fabric/addresses",
                               kExchangeTimeout);
    auto parsed =
        body ? ParseAddressesJson(*body) : Result<HostAddresses>(body.error());
    if (parsed) remote = std::move(*parsed);
  }
  if (!target->remote_ip.empty()) {
    std::erase_if(remote.addresses, [&](const DeviceAddress& a) {
      return a.ip != target->remote_ip;
    });
  }
  if (!target->device.empty()) {
    std::erase_if(local, [&](const DeviceAddress& a) {
      return a.device != target->device;
    });
  }
  std::vector<probe::Operation> ops = cfg_.operations;
  if (target->operation) ops = {*target->operation};
  MetricSet out;
  bool all_ok = true;
  std::set<std::pair<std::string, std::string>> done;
  const auto pairs = PairAddresses(local, remote.addresses, cfg_.pairing);
  if (pairs.empty()) all_ok = false;
  for (const auto& p : pairs) {
    if (!done.insert({p.local.device, p.remote.device}).second) continue;
    LinkKey key{{p.local.device, target->peer.host, p.remote.device},
                p.local.ip,
                p.remote.ip,
                remote.port};
    ConnectSpec spec = Spec(key);
    for (auto op : ops) {
      if (op == probe::Operation::kSend) spec.ops |= kOpSend;
      if (op == probe::Operation::kWrite) spec.ops |= kOpWrite;
      if (op == probe::Operation::kRead) spec.ops |= kOpRead;
    }
    ConnectFailure failure;
    auto link = RcLink::Connect(spec, failure);
    if (link &&
        link->WarmUp(ops.front(), cfg_.sizes.front(), cfg_.op_timeout).kind !=
            PingResult::Kind::kOk)
      link.reset();
    for (auto op : ops) {
      double sum = 0;
      double min = 0;
      int n = 0;
      int failed = 0;
      for (int i = 0; i < cfg_.iterations; ++i) {
        if (!link) {
          ++failed;
          continue;
        }
        const auto r = link->Ping(op, cfg_.sizes.front(), cfg_.op_timeout);
        if (r.kind == PingResult::Kind::kOk) {
          sum += r.seconds;
          min = n == 0 ? r.seconds : std::min(min, r.seconds);
          ++n;
        } else {
          ++failed;
          link.reset();
        }
      }
      if (failed > 0) all_ok = false;
      const LabelSetPtr labels =
          LabelSet::Make({{"device", p.local.device},
                          {"remote_device", p.remote.device},
                          {"operation", probe::OperationName(op)}});
      if (n > 0) {
        out.Add(families::kProbeRtt, labels, sum / n);
        out.Add(families::kProbeRttMin, labels, min);
      }
      out.Add(families::kProbeFailures, labels, failed);
    }
  }
  out.Add(families::kProbeSuccess, {}, all_ok ? 1 : 0);
  out.Add(families::kProbeDuration, {},
          std::chrono::duration<double>(Clock::now() - start).count());
  reply.metrics = std::move(out);
  return reply;
}

}  // namespace rnic::fabric
