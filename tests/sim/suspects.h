// The fleet simulator's faults and the suspect alerts' logic over them:
// the rules of dashboards/rules/rnic_fabric_rules.yaml (group
// rnic.rules.fabric.fleet) and the alerts RnicFabricSuspectHost, -Tor and
// -Path of dashboards/alerts/rnic_fabric_alerts.yaml, evaluated on the
// probes one rate window of the schedule makes. The promtool cases check
// the YAML itself; this checks the logic on fleets promtool cannot hold.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rnic::sim {

struct SimFleet {
  int rails = 8;
  std::vector<int> group_of;  // per host
  int groups = 0;
};

// The hosts each host probes in each period of the window:
// window[period][host] -> hosts.
using Window = std::vector<std::vector<std::vector<int>>>;

enum class FaultKind { kHost, kCable, kTor, kPath, kPair };
[[nodiscard]] const char* FaultName(FaultKind kind);

// kHost: host a; kCable: one rail of host a (1/rails of its probes);
// kTor: group a's uplinks (pairs with one end in a); kPath: between groups
// a and b; kPair: host a to host b only.
struct Fault {
  FaultKind kind = FaultKind::kHost;
  int a = 0;
  int b = 0;
};

struct Suspects {
  std::set<int> hosts;
  std::set<int> tors;
  std::set<std::pair<int, int>> paths;  // (source group, destination group)
  [[nodiscard]] bool empty() const {
    return hosts.empty() && tors.empty() && paths.empty();
  }
};

// The probe counts of one window, counted once; each fault then adds only
// its failures. `full_mesh`: every pair has per-pair series, else only
// those within a group, as the exporter exports them.
class Evaluator {
 public:
  Evaluator(const SimFleet& fleet, Window window, bool full_mesh);
  // The fault started `from` periods into the window (0: all of it).
  [[nodiscard]] Suspects Evaluate(const Fault& fault, int from = 0) const;
  [[nodiscard]] int periods() const { return static_cast<int>(window_.size()); }

 private:
  const SimFleet& fleet_;
  Window window_;
  bool full_mesh_;
  std::unordered_map<std::uint64_t, double> pair_total_;  // a * n + b
  std::vector<double> host_group_total_;                  // a * groups + g
};

// The alerts name exactly the faulty element (a cable or a single pair:
// nothing, as the rules sum over devices and one pair names nothing).
[[nodiscard]] bool NamedCorrectly(const SimFleet& fleet, const Fault& fault,
                                  const Suspects& s);

}  // namespace rnic::sim
