#include "collectors/fabric/fabric_stats.h"

#include "collectors/fabric/fabric_families.h"
#include "collectors/metrics/registry_snapshot.h"
#include "collectors/probing/latency_buckets.h"

namespace rnic::fabric {
namespace {

template <typename Builder>
auto& Build(Builder b, const FamilyDesc& d, prometheus::Registry& r) {
  return b.Name(std::string(d.name)).Help(std::string(d.help)).Register(r);
}

}  // namespace

FabricStats::FabricStats(std::string group_by)
    : group_by_(std::move(group_by)),
      registry_(std::make_shared<prometheus::Registry>()),
      rtt_(Build(prometheus::BuildHistogram(), families::kRtt, *registry_)),
      group_rtt_(
          Build(prometheus::BuildHistogram(), families::kGroupRtt, *registry_)),
      probes_(Build(prometheus::BuildCounter(), families::kProbes, *registry_)),
      errors_(Build(prometheus::BuildCounter(), families::kCompletionErrors,
                    *registry_)),
      connect_failures_(Build(prometheus::BuildCounter(),
                              families::kConnectFailures, *registry_)),
      up_(Build(prometheus::BuildGauge(), families::kPeerUp, *registry_)),
      reconnects_(
          Build(prometheus::BuildCounter(), families::kReconnects, *registry_)),
      last_connected_(Build(prometheus::BuildGauge(), families::kLastConnected,
                            *registry_)),
      exchange_failures_(Build(prometheus::BuildCounter(),
                               families::kAddressExchangeFailures, *registry_)),
      peers_(Build(prometheus::BuildGauge(), families::kPeers, *registry_)),
      pairs_(Build(prometheus::BuildGauge(), families::kPairs, *registry_)),
      scheduled_(Build(prometheus::BuildGauge(), families::kScheduledPeers,
                       *registry_)),
      group_probes_(Build(prometheus::BuildCounter(), families::kGroupProbes,
                          *registry_)),
      group_ok_rtt_(
          Build(prometheus::BuildCounter(), families::kGroupOkRtt, *registry_)),
      mesh_info_(
          Build(prometheus::BuildGauge(), families::kMeshInfo, *registry_)),
      peer_group_(
          Build(prometheus::BuildGauge(), families::kPeerGroup, *registry_)),
      live_peers_(
          Build(prometheus::BuildGauge(), families::kLivePeers, *registry_)),
      live_probed_(Build(prometheus::BuildGauge(), families::kLivePeersProbed,
                         *registry_)),
      live_failures_(Build(prometheus::BuildCounter(),
                           families::kLiveDumpFailures, *registry_)),
      responder_connections_(Build(prometheus::BuildGauge(),
                                   families::kResponderConnections,
                                   *registry_)),
      accepted_(Build(prometheus::BuildCounter(), families::kResponderAccepted,
                      *registry_)),
      refused_(Build(prometheus::BuildCounter(), families::kResponderRefused,
                     *registry_)),
      cpu_seconds_(
          Build(prometheus::BuildCounter(), families::kCpuSeconds, *registry_)
              .Add({})),
      budget_delay_(
          Build(prometheus::BuildCounter(), families::kBudgetDelay, *registry_)
              .Add({})) {
  peers_.Add({}).Set(0);
  pairs_.Add({}).Set(0);
}

prometheus::Labels FabricStats::PairLabels(const PairKey& k) const {
  return {{"device", k.device},
          {"peer", k.peer},
          {"remote_device", k.remote_device}};
}

FabricStats::PairSeries& FabricStats::Pair(const PairKey& k) {
  auto [it, fresh] = pairs_map_.try_emplace(k);
  if (fresh) {
    const auto l = PairLabels(k);
    it->second.up = &up_.Add(l);
    it->second.last_connected = &last_connected_.Add(l);
    it->second.reconnects = &reconnects_.Add(l);
  }
  return it->second;
}

FabricStats::Histogram* FabricStats::GroupHistogram(
    const PairKey& k, const std::string& group, const std::string& op,
    std::uint32_t size, const std::vector<double>& buckets) {
  GroupKey gk{k.device, group, op, size};
  auto it = groups_.find(gk);
  if (it == groups_.end()) {
    it =
        groups_
            .emplace(gk, &group_rtt_.Add({{"device", k.device},
                                          {"group", group},
                                          {"operation", op},
                                          {"size_bytes", std::to_string(size)}},
                                         buckets))
            .first;
  }
  return it->second;
}

void FabricStats::RecordRtts(const PairKey& k, const std::string& group,
                             probe::Operation op, std::uint32_t size,
                             std::span<const double> seconds) {
  std::lock_guard g(mu_);
  const std::string opname = probe::OperationName(op);
  if (auto gp = grouped_.find(k); gp != grouped_.end()) {
    double sum = 0;
    for (double s : seconds) sum += s;
    auto& slot = group_ok_rtt_map_[gp->second.group];
    if (slot == nullptr) {
      slot = &group_ok_rtt_.Add({{"group", gp->second.group}});
    }
    slot->Increment(sum);
    if (!gp->second.own) return;
    Histogram* h = GroupHistogram(k, gp->second.group, opname, size,
                                  probe::CoarseLatencyBuckets());
    for (double s : seconds) h->Observe(s);
    return;
  }
  Histogram* h = nullptr;
  if (!group_by_.empty()) {
    h = GroupHistogram(k, group, opname, size, probe::LatencyBuckets());
  } else {
    auto& p = Pair(k);
    auto& slot = p.rtt[{opname, size}];
    if (slot == nullptr) {
      auto l = PairLabels(k);
      l["operation"] = opname;
      l["size_bytes"] = std::to_string(size);
      slot = &rtt_.Add(l, probe::LatencyBuckets());
    }
    h = slot;
  }
  for (double s : seconds) h->Observe(s);
}

void FabricStats::RecordProbes(const PairKey& k, probe::Operation op,
                               const std::string& result, std::uint64_t n) {
  std::lock_guard g(mu_);
  if (auto a = grouped_.find(k); a != grouped_.end()) {
    auto& slot = group_probes_map_[{a->second.group, result}];
    if (slot == nullptr) {
      slot =
          &group_probes_.Add({{"group", a->second.group}, {"result", result}});
    }
    slot->Increment(static_cast<double>(n));
    if (!a->second.detail) return;
  }
  auto& p = Pair(k);
  const std::string opname = probe::OperationName(op);
  auto& slot = p.probes[{opname, result}];
  if (slot == nullptr) {
    auto l = PairLabels(k);
    l["operation"] = opname;
    l["result"] = result;
    slot = &probes_.Add(l);
  }
  slot->Increment(static_cast<double>(n));
}

void FabricStats::RecordCompletionError(const PairKey& k, probe::Operation op,
                                        const std::string& status) {
  std::lock_guard g(mu_);
  if (!PerPair(k)) return;
  auto& p = Pair(k);
  const std::string opname = probe::OperationName(op);
  auto& slot = p.errors[{opname, status}];
  if (slot == nullptr) {
    auto l = PairLabels(k);
    l["operation"] = opname;
    l["status"] = status;
    slot = &errors_.Add(l);
  }
  slot->Increment();
}

void FabricStats::RecordConnectFailure(const PairKey& k,
                                       const std::string& event) {
  std::lock_guard g(mu_);
  if (!PerPair(k)) return;
  auto& p = Pair(k);
  auto& slot = p.connect_failures[event];
  if (slot == nullptr) {
    auto l = PairLabels(k);
    l["event"] = event;
    slot = &connect_failures_.Add(l);
  }
  slot->Increment();
}

void FabricStats::RecordConnected(const PairKey& k, double unix_seconds) {
  std::lock_guard g(mu_);
  if (!PerPair(k)) return;
  auto& p = Pair(k);
  if (p.connected_before) p.reconnects->Increment();
  p.connected_before = true;
  p.last_connected->Set(unix_seconds);
}

void FabricStats::SetPeerUp(const PairKey& k, bool up) {
  std::lock_guard g(mu_);
  if (!PerPair(k)) return;
  Pair(k).up->Set(up ? 1 : 0);
}

void FabricStats::ForgetPair(const PairKey& k) {
  std::lock_guard g(mu_);
  ForgetPairLocked(k);
}

void FabricStats::ForgetPairLocked(const PairKey& k) {
  auto it = pairs_map_.find(k);
  if (it == pairs_map_.end()) return;
  auto& p = it->second;
  up_.Remove(p.up);
  last_connected_.Remove(p.last_connected);
  reconnects_.Remove(p.reconnects);
  for (auto& [_, h] : p.rtt) rtt_.Remove(h);
  for (auto& [_, c] : p.probes) probes_.Remove(c);
  for (auto& [_, c] : p.errors) errors_.Remove(c);
  for (auto& [_, c] : p.connect_failures) connect_failures_.Remove(c);
  pairs_map_.erase(it);
}

void FabricStats::RecordExchangeFailure(const std::string& peer) {
  std::lock_guard g(mu_);
  auto& slot = exchange_[peer];
  if (slot == nullptr) slot = &exchange_failures_.Add({{"peer", peer}});
  slot->Increment();
}

void FabricStats::ForgetPeer(const std::string& peer) {
  std::lock_guard g(mu_);
  if (auto it = exchange_.find(peer); it != exchange_.end()) {
    exchange_failures_.Remove(it->second);
    exchange_.erase(it);
  }
}

void FabricStats::SetPeers(std::size_t peers, std::size_t pairs) {
  peers_.Add({}).Set(static_cast<double>(peers));
  pairs_.Add({}).Set(static_cast<double>(pairs));
}

void FabricStats::SetScheduledPeers(std::size_t peers) {
  scheduled_.Add({}).Set(static_cast<double>(peers));
}

void FabricStats::SetLivePeers(std::size_t found, std::size_t probed) {
  live_peers_.Add({}).Set(static_cast<double>(found));
  live_probed_.Add({}).Set(static_cast<double>(probed));
  live_failures_.Add({});
}

void FabricStats::RecordLiveDumpFailure() {
  live_failures_.Add({}).Increment();
}

void FabricStats::SetGrouped(std::map<PairKey, GroupedPair> pairs) {
  std::lock_guard g(mu_);
  grouped_ = std::move(pairs);
  // A pair kept per pair until now (the mesh became partial, or its peer
  // left the detail set) loses its per-pair series; the histograms of a
  // detail pair are its group's.
  for (const auto& [k, gp] : grouped_) {
    if (!gp.detail) {
      ForgetPairLocked(k);
      continue;
    }
    auto it = pairs_map_.find(k);
    if (it == pairs_map_.end()) continue;
    for (auto& [_, h] : it->second.rtt) rtt_.Remove(h);
    it->second.rtt.clear();
  }
}

double FabricStats::GroupProbes(const std::string& group,
                                const std::string& result) const {
  std::lock_guard g(mu_);
  auto it = group_probes_map_.find({group, result});
  return it == group_probes_map_.end() ? 0 : it->second->Value();
}

double FabricStats::GroupOkRtt(const std::string& group) const {
  std::lock_guard g(mu_);
  auto it = group_ok_rtt_map_.find(group);
  return it == group_ok_rtt_map_.end() ? 0 : it->second->Value();
}

void FabricStats::SetMesh(
    const std::string& host, const std::string& group,
    const std::map<std::string, std::string>& peer_groups) {
  std::lock_guard g(mu_);
  if (mesh_self_ == nullptr || mesh_self_key_ != std::pair{host, group}) {
    if (mesh_self_ != nullptr) mesh_info_.Remove(mesh_self_);
    mesh_self_ = &mesh_info_.Add({{"host", host}, {"group", group}});
    mesh_self_->Set(1);
    mesh_self_key_ = {host, group};
  }
  for (auto it = peer_groups_.begin(); it != peer_groups_.end();) {
    auto want = peer_groups.find(it->first.first);
    if (want == peer_groups.end() || want->second != it->first.second) {
      peer_group_.Remove(it->second);
      it = peer_groups_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [peer, peer_group] : peer_groups) {
    auto [it, fresh] = peer_groups_.try_emplace({peer, peer_group}, nullptr);
    if (fresh) {
      it->second = &peer_group_.Add({{"peer", peer}, {"group", peer_group}});
      it->second->Set(1);
    }
  }
}

void FabricStats::SetResponderConnections(const std::string& dev, int n) {
  std::lock_guard g(mu_);
  auto& slot = responder_[dev];
  if (slot == nullptr) slot = &responder_connections_.Add({{"device", dev}});
  slot->Set(n);
}

void FabricStats::RecordAccepted(const std::string& dev) {
  std::lock_guard g(mu_);
  auto& slot = accepted_map_[dev];
  if (slot == nullptr) slot = &accepted_.Add({{"device", dev}});
  slot->Increment();
}

void FabricStats::RecordRefused(const std::string& dev,
                                const std::string& reason) {
  std::lock_guard g(mu_);
  auto& slot = refused_map_[{dev, reason}];
  if (slot == nullptr)
    slot = &refused_.Add({{"device", dev}, {"reason", reason}});
  slot->Increment();
}

void FabricStats::AddCpuSeconds(double s) { cpu_seconds_.Increment(s); }
double FabricStats::CpuSeconds() const { return cpu_seconds_.Value(); }
void FabricStats::AddBudgetDelay(double s) { budget_delay_.Increment(s); }

void FabricStats::AppendTo(MetricSet& out) const {
  AppendCollected(registry_->Collect(), out, families::kAll);
}

std::optional<prometheus::ClientMetric::Histogram> FabricStats::Rtt(
    const PairKey& k, probe::Operation op, std::uint32_t size) const {
  std::lock_guard g(mu_);
  auto it = pairs_map_.find(k);
  if (it == pairs_map_.end()) return std::nullopt;
  auto h = it->second.rtt.find({probe::OperationName(op), size});
  if (h == it->second.rtt.end()) return std::nullopt;
  return h->second->Collect().histogram;
}

std::optional<prometheus::ClientMetric::Histogram> FabricStats::GroupRtt(
    const std::string& device, const std::string& group, probe::Operation op,
    std::uint32_t size) const {
  std::lock_guard g(mu_);
  auto it = groups_.find({device, group, probe::OperationName(op), size});
  if (it == groups_.end()) return std::nullopt;
  return it->second->Collect().histogram;
}

double FabricStats::Probes(const PairKey& k, probe::Operation op,
                           const std::string& result) const {
  std::lock_guard g(mu_);
  auto it = pairs_map_.find(k);
  if (it == pairs_map_.end()) return 0;
  auto c = it->second.probes.find({probe::OperationName(op), result});
  return c == it->second.probes.end() ? 0 : c->second->Value();
}

double FabricStats::Refused(const std::string& dev,
                            const std::string& reason) const {
  std::lock_guard g(mu_);
  auto it = refused_map_.find({dev, reason});
  return it == refused_map_.end() ? 0 : it->second->Value();
}

std::optional<double> FabricStats::PeerUp(const PairKey& k) const {
  std::lock_guard g(mu_);
  auto it = pairs_map_.find(k);
  if (it == pairs_map_.end()) return std::nullopt;
  return it->second.up->Value();
}

}  // namespace rnic::fabric
