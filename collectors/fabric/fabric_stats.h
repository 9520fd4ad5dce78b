// What the fabric probe's threads accumulate and the collector snapshots:
// prometheus-cpp instruments in a registry of its own, as ProbeStats does
// for the loopback probe (same buckets, same snapshot path). Series of a
// pair leave with the pair (a peer dropped from the peer set), so the
// series count follows the peer set, never its history.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "collectors/metrics/metric_set.h"
#include "collectors/probing/operation.h"

namespace rnic::fabric {

// One probed pair: local device, peer host, remote device.
struct PairKey {
  std::string device;
  std::string peer;
  std::string remote_device;
  auto operator<=>(const PairKey&) const = default;
};

class FabricStats {
 public:
  // `group_by`: a peer label; when set, RTTs go into one histogram per value
  // of that label (rnic_fabric_group_rtt_seconds) instead of one per pair.
  explicit FabricStats(std::string group_by = "");

  // `group` is the peer's value of the group_by label ("" when it has none).
  void RecordRtts(const PairKey& k, const std::string& group,
                  probe::Operation op, std::uint32_t size,
                  std::span<const double> seconds);
  // result: ok, timeout, completion_error, not_connected.
  void RecordProbes(const PairKey& k, probe::Operation op,
                    const std::string& result, std::uint64_t n = 1);
  void RecordCompletionError(const PairKey& k, probe::Operation op,
                             const std::string& status);
  void RecordConnectFailure(const PairKey& k, const std::string& event);
  // A connection was established at `unix_seconds`; not the first: a
  // reconnect.
  void RecordConnected(const PairKey& k, double unix_seconds);
  void SetPeerUp(const PairKey& k, bool up);
  // Drops every series of the pair (it left the peer set).
  void ForgetPair(const PairKey& k);
  // The pairs of a partial mesh, replacing the last set (empty: a full
  // mesh, every pair per pair as given to the other calls). Their probes
  // count per peer group (rnic_fabric_group_probes_total and the RTT sum
  // of rnic_fabric_group_ok_rtt_seconds_total); the RTTs of the host's own
  // group also go to one coarse histogram per device; only `detail` pairs
  // keep per-pair series, without histograms. The other pairs rotate:
  // per-pair series would come and go with them.
  struct GroupedPair {
    std::string group;
    bool own = false;     // the peer is in this host's group
    bool detail = false;  // per-pair counters and gauges too
    bool operator==(const GroupedPair&) const = default;
  };
  void SetGrouped(std::map<PairKey, GroupedPair> pairs);

  void RecordExchangeFailure(const std::string& peer);
  void ForgetPeer(const std::string& peer);
  void SetPeers(std::size_t peers, std::size_t pairs);
  void SetScheduledPeers(std::size_t peers);
  // This host's name and group, and the group of each peer probed (the
  // series of peers no longer given leave).
  void SetMesh(const std::string& host, const std::string& group,
               const std::map<std::string, std::string>& peer_groups);

  // Live peers (fabric.live_peers): hosts found in the last dump and those
  // probed this round; the series exist once the source has run.
  void SetLivePeers(std::size_t found, std::size_t probed);
  void RecordLiveDumpFailure();

  void SetResponderConnections(const std::string& dev, int n);
  void RecordAccepted(const std::string& dev);
  void RecordRefused(const std::string& dev, const std::string& reason);

  void AddCpuSeconds(double s);
  // CPU of the initiator and the responder threads so far.
  [[nodiscard]] double CpuSeconds() const;
  void AddBudgetDelay(double s);

  void AppendTo(MetricSet& out) const;

  // For tests.
  [[nodiscard]] std::optional<prometheus::ClientMetric::Histogram> Rtt(
      const PairKey& k, probe::Operation op, std::uint32_t size) const;
  [[nodiscard]] std::optional<prometheus::ClientMetric::Histogram> GroupRtt(
      const std::string& device, const std::string& group, probe::Operation op,
      std::uint32_t size) const;
  [[nodiscard]] double Probes(const PairKey& k, probe::Operation op,
                              const std::string& result) const;
  [[nodiscard]] double Refused(const std::string& dev,
                               const std::string& reason) const;
  [[nodiscard]] std::optional<double> PeerUp(const PairKey& k) const;
  [[nodiscard]] double GroupProbes(const std::string& group,
                                   const std::string& result) const;
  [[nodiscard]] double GroupOkRtt(const std::string& group) const;

 private:
  using Counter = prometheus::Counter;
  using Gauge = prometheus::Gauge;
  using Histogram = prometheus::Histogram;
  struct PairSeries {
    Gauge* up = nullptr;
    Gauge* last_connected = nullptr;
    Counter* reconnects = nullptr;
    bool connected_before = false;
    std::map<std::tuple<std::string, std::uint32_t>, Histogram*> rtt;
    std::map<std::tuple<std::string, std::string>, Counter*> probes;
    std::map<std::tuple<std::string, std::string>, Counter*> errors;
    std::map<std::string, Counter*> connect_failures;
  };
  using GroupKey =
      std::tuple<std::string, std::string, std::string, std::uint32_t>;

  PairSeries& Pair(const PairKey& k);  // callers hold mu_
  // Whether the pair has per-pair series (callers hold mu_).
  [[nodiscard]] bool PerPair(const PairKey& k) const {
    auto it = grouped_.find(k);
    return it == grouped_.end() || it->second.detail;
  }
  void ForgetPairLocked(const PairKey& k);
  [[nodiscard]] prometheus::Labels PairLabels(const PairKey& k) const;

  std::string group_by_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<Histogram>& rtt_;
  prometheus::Family<Histogram>& group_rtt_;
  prometheus::Family<Counter>& probes_;
  prometheus::Family<Counter>& errors_;
  prometheus::Family<Counter>& connect_failures_;
  prometheus::Family<Gauge>& up_;
  prometheus::Family<Counter>& reconnects_;
  prometheus::Family<Gauge>& last_connected_;
  prometheus::Family<Counter>& exchange_failures_;
  prometheus::Family<Gauge>& peers_;
  prometheus::Family<Gauge>& pairs_;
  prometheus::Family<Gauge>& scheduled_;
  prometheus::Family<Counter>& group_probes_;
  prometheus::Family<Counter>& group_ok_rtt_;
  prometheus::Family<Gauge>& mesh_info_;
  prometheus::Family<Gauge>& peer_group_;
  prometheus::Family<Gauge>& live_peers_;
  prometheus::Family<Gauge>& live_probed_;
  prometheus::Family<Counter>& live_failures_;
  prometheus::Family<Gauge>& responder_connections_;
  prometheus::Family<Counter>& accepted_;
  prometheus::Family<Counter>& refused_;
  Counter& cpu_seconds_;
  Counter& budget_delay_;

  mutable std::mutex mu_;
  std::map<PairKey, PairSeries> pairs_map_;
  std::map<GroupKey, Histogram*> groups_;
  std::map<std::string, Counter*> exchange_;
  std::map<std::string, Gauge*> responder_;
  // Callers hold mu_: the histogram of a (device, group) key.
  Histogram* GroupHistogram(const PairKey& k, const std::string& group,
                            const std::string& op, std::uint32_t size,
                            const std::vector<double>& buckets);

  std::map<PairKey, GroupedPair> grouped_;
  std::map<std::pair<std::string, std::string>, Counter*> group_probes_map_;
  std::map<std::string, Counter*> group_ok_rtt_map_;
  Gauge* mesh_self_ = nullptr;
  std::pair<std::string, std::string> mesh_self_key_;
  std::map<std::pair<std::string, std::string>, Gauge*> peer_groups_;
  std::map<std::string, Counter*> accepted_map_;
  std::map<std::tuple<std::string, std::string>, Counter*> refused_map_;
};

}  // namespace rnic::fabric
