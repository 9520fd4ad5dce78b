// The fleet simulator's faults and the suspect alerts' logic over them:
// the rules of dashboards/rules/rnic_fabric_rules.yaml (group
// rnic.rules.fabric.fleet) and the alerts RnicFabricSuspectHost, -Link, -Tor
// and -Path of dashboards/alerts/rnic_fabric_alerts.yaml, evaluated on the
// probes one rate window of the schedule makes. The promtool cases check
// the YAML itself; this checks the logic on fleets promtool cannot hold.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace rnic::sim {

// The thresholds of the rules and alerts (the same numbers as the YAML).
struct Thresholds {
  double failing = 0.15;  // a ratio over the window that counts as failing
  double source = 0.05;   // a source that sees a peer fail at all
  int host_sources = 3;   // sources that must see a host or link fail
  int path_hosts = 2;     // hosts failing between the two groups, both ways
  int path_spread = 1;    // groups either end fails with, either way
};

// The suspect alerts' `for:` and their group's evaluation interval (the
// same numbers as the YAML): an alert fires at the evaluation where its
// condition has held since an evaluation `for` or more before.
struct Holds {
  double eval_s = 10;
  double host_s = 10;
  double link_s = 10;
  double tor_s = 10;
  double path_s = 10;
};

struct SimFleet {
  int rails = 8;
  std::vector<int> group_of;  // per host
  int groups = 0;
};

// One probe of a rotation period: host a probed host b, with per-pair
// series when `detail` (a pair of a's own group kept per pair).
struct Probe {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint16_t period = 0;
  bool detail = false;
};

enum class FaultKind { kHost, kCable, kTor, kPath, kPair };
[[nodiscard]] const char* FaultName(FaultKind kind);

// kHost: host a; kCable: rail b of host a; kTor: group a's uplinks (pairs
// with one end in a); kPath: between groups a and b; kPair: host a to host
// b only.
struct Fault {
  FaultKind kind = FaultKind::kHost;
  int a = 0;
  int b = 0;
};

struct Suspects {
  std::set<int> hosts;
  std::set<std::pair<int, int>> links;  // (host, rail)
  std::set<int> tors;
  std::set<std::pair<int, int>> paths;  // (source group, destination group)
  [[nodiscard]] bool empty() const {
    return hosts.empty() && links.empty() && tors.empty() && paths.empty();
  }
};

// The probe counts of one window, counted once; each fault then adds only
// the failures of the probes that cross it.
class Evaluator {
 public:
  Evaluator(const SimFleet& fleet, std::vector<Probe> probes, int periods,
            double period_s, Thresholds t = {});
  // The fault has lasted the last `fail_s` seconds of the window.
  [[nodiscard]] Suspects Evaluate(const Fault& fault, double fail_s) const;
  [[nodiscard]] double window_s() const { return periods_ * period_s_; }

 private:
  const SimFleet& fleet_;
  std::vector<Probe> probes_;
  int periods_;
  double period_s_;
  Thresholds t_;
  std::vector<std::vector<std::uint32_t>> by_host_;      // probe indices
  std::vector<std::vector<std::uint32_t>> by_group_;     // one end in it
  std::unordered_map<std::uint64_t, int> pair_periods_;  // detail a * n + b
  std::unordered_set<std::uint64_t> partner_pairs_;      // detail lo * n + hi
  std::vector<int> partners_;             // per host: hosts of its detail pairs
  std::vector<int> group_peers_;          // per group: hosts with partners
  std::vector<int> host_group_periods_;   // a * groups + g
  std::vector<int> group_pair_hosts_;     // s * groups + g: hosts probing
  std::vector<int> group_pairs_defined_;  // per destination group
};

// What fires at the last of `evals` (the conditions at consecutive
// evaluations, oldest first): the elements named at every evaluation of
// the alert's `for`.
[[nodiscard]] Suspects Fired(const std::vector<Suspects>& evals,
                             const Holds& h);

// The alerts name exactly the faulty element; a single pair names nothing.
[[nodiscard]] bool NamedCorrectly(const Fault& fault, const Suspects& s);
// Nothing but the faulty element (or part of it) is named.
[[nodiscard]] bool NamedNothingElse(const SimFleet& fleet, const Fault& fault,
                                    const Suspects& s);

}  // namespace rnic::sim
