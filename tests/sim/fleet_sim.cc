// Fleet simulator of the fabric probe's partial mesh: runs the exporter's
// own schedule (collectors/fabric/mesh_schedule.h) for every host of a
// synthetic fleet and reports, per host, peers probed, connections, probes
// per second, address exchanges and series, and the time until every group
// pair and every host pair has been probed. With --check it exits 1 when a
// bound or a coverage property does not hold (the ctest runs a small fleet
// so).
//
//   rnic_fleet_sim [--hosts N] [--groups G] [--rails R] [--max-peers P]
//                  [--representatives K] [--max-connections C]
//                  [--detail-peers D] [--rotation SECONDS] [--faults N]
//                  [--no-coverage] [--check]
//
// --faults N injects N single faults in turn (a host, one rail of a host,
// a ToR's uplinks, the path between two ToRs, a single pair) as failures
// of the pairs that cross them, starting at some moment of the rules'
// 1-minute rate window, and counts how often the suspect alerts' logic
// (suspects.h) names exactly the faulty element, how long after its start
// (the first evaluation at which its alert fires, each alert's `for:`
// held over the 10 s evaluations, at their best phase), and whether
// anything else fires at any evaluation of any phase; a single pair must
// name nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "collectors/fabric/mesh_schedule.h"
#include "tests/sim/suspects.h"

namespace {

using rnic::fabric::MeshMember;
using rnic::fabric::MeshSchedule;

struct Options {
  int hosts = 10000;
  int groups = 320;
  int rails = 8;
  // The exporter's defaults (fabric.mesh and fabric.max_connections).
  int max_peers = 64;
  int representatives = 3;
  int max_connections = 64;
  int detail_peers = 8;
  double rotation_s = 8;
  // The probe's defaults: send and write, 5 ping-pongs each, every second.
  int operations = 2;
  int iterations = 5;
  double interval_s = 1;
  bool check = false;
  bool coverage = true;  // --no-coverage: per-host figures and faults only
  int faults = 0;        // single faults injected, in turn of each kind
  double window_s = 60;  // the fleet rules' rate window
};

bool ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    const char* v = nullptr;
    if (a == "--check") {
      o.check = true;
      continue;
    }
    if (a == "--no-coverage") {
      o.coverage = false;
      continue;
    }
    if ((v = next()) == nullptr) return false;
    if (a == "--faults") {
      o.faults = std::atoi(v);
    } else if (a == "--hosts") {
      o.hosts = std::atoi(v);
    } else if (a == "--groups") {
      o.groups = std::atoi(v);
    } else if (a == "--rails") {
      o.rails = std::atoi(v);
    } else if (a == "--max-peers") {
      o.max_peers = std::atoi(v);
    } else if (a == "--representatives") {
      o.representatives = std::atoi(v);
    } else if (a == "--max-connections") {
      o.max_connections = std::atoi(v);
    } else if (a == "--detail-peers") {
      o.detail_peers = std::atoi(v);
    } else if (a == "--rotation") {
      o.rotation_s = std::atof(v);
    } else {
      return false;
    }
  }
  return o.hosts > 1 && o.groups >= 1 && o.groups <= o.hosts && o.rails >= 1 &&
         o.rotation_s > 0 && o.detail_peers >= 0;
}

// Series of one probed device pair in a full mesh (collectors/fabric/
// README.md, Cardinality): 2 histograms x 36 + 2 probes_total + peer_up,
// reconnects, last_connected; with group_by the histograms leave the pair.
constexpr int kPairSeries = 77;
constexpr int kPairSeriesGrouped = 5;
// A partial mesh's per-pair detail: the counters and gauges above without
// the histograms; its own group's histogram per device and operation has
// the coarse buckets (16 + +Inf, sum, count).
constexpr int kDetailPairSeries = 5;
constexpr int kCoarseHistogramSeries = 19;
// Series of the collector that do not depend on peers: peers, pairs,
// scheduled peers, mesh info, cpu, budget delay, and per device responder
// connections and accepted.
int FixedSeries(int rails) { return 6 + 2 * rails; }

double window_s_of(int periods, double rotation_s) {
  return periods * rotation_s;
}

struct Stat {
  double sum = 0;
  double max = 0;
  long n = 0;
  void Add(double v) {
    sum += v;
    max = std::max(max, v);
    ++n;
  }
  [[nodiscard]] double Mean() const { return n ? sum / n : 0; }
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) {
    std::fprintf(
        stderr,
        "usage: rnic_fleet_sim [--hosts N] [--groups G] [--rails R] "
        "[--max-peers P] [--representatives K] [--max-connections C] "
        "[--detail-peers D] [--rotation S] [--faults N] [--no-coverage] "
        "[--check]\n");
    return 2;
  }
  // Groups of about hosts/groups, the remainder spread one each.
  std::vector<MeshMember> fleet;
  std::vector<int> group_of;
  for (int h = 0; h < o.hosts; ++h) {
    const int g = h % o.groups;
    fleet.push_back({"host-" + std::to_string(h), "tor-" + std::to_string(g)});
    group_of.push_back(g);
  }
  MeshSchedule s(fleet, {o.max_peers, o.representatives, o.max_connections});
  const std::uint64_t base = 176470000;  // any period: the schedule rotates
  int failures = 0;
  auto fail = [&](const std::string& what) {
    std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
    ++failures;
  };

  // Index of a host, for the coverage bitmaps: its number.
  auto index = [](const std::string& host) {
    return std::atoi(host.c_str() + 5);
  };

  const std::size_t n = static_cast<std::size_t>(o.hosts);
  const std::size_t g = static_cast<std::size_t>(o.groups);
  // Who probed whom (a * n + b: a probed b). A host pair is unordered, a
  // round trip measuring both directions: it is covered once either end
  // has probed the other.
  std::vector<bool> host_pair(n * n, false);
  // Pairs of hosts in two groups probed from both ends: the schedule
  // gives each such pair to one of its ends, so this stays 0 (groups of
  // one aside).
  std::size_t both_ends = 0;
  std::vector<bool> group_pair(g * g, false);
  std::size_t host_pairs_left = n * (n - 1) / 2;
  std::size_t group_pairs_left = g * (g - 1);
  std::uint64_t periods_groups = 0;
  std::uint64_t periods_hosts = 0;
  // own: the peers with per-pair series (all of them in a full mesh, else
  // the detail peers of the host's own group).
  Stat out_peers, in_peers, conns, own_peers, new_out, new_exchange;
  std::vector<std::vector<int>> detail(n);
  for (std::size_t a = 0; a < n; ++a) {
    for (const auto& h : s.Detail(fleet[a].host, o.detail_peers))
      detail[a].push_back(index(h));
    std::sort(detail[a].begin(), detail[a].end());
  }
  // Groups each host has probed so far: one group counter each.
  std::vector<std::vector<bool>> groups_seen(n, std::vector<bool>(g, false));
  std::vector<std::vector<int>> prev_out(n), prev_in(n);
  double targets_seconds = 0;
  long targets_calls = 0;
  // Until every host pair is covered, at most this many periods.
  const std::uint64_t limit = o.coverage ? 100000 : 8;
  for (std::uint64_t p = 0; p < limit && host_pairs_left > 0; ++p) {
    std::vector<std::vector<int>> out(n), in(n);
    std::vector<bool> group_pair_now(g * g, false);
    for (std::size_t a = 0; a < n; ++a) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto targets = s.Targets(fleet[a].host, base + p);
      targets_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
      ++targets_calls;
      for (const auto& t : targets) {
        const int b = index(t);
        out[a].push_back(b);
        groups_seen[a][static_cast<std::size_t>(group_of[b])] = true;
        in[b].push_back(static_cast<int>(a));
        if (!host_pair[a * n + b]) {
          host_pair[a * n + b] = true;
          if (!host_pair[b * n + a]) {
            --host_pairs_left;
          } else if (group_of[a] != group_of[b]) {
            ++both_ends;
          }
        }
        const std::size_t gp = group_of[a] * g + group_of[b];
        if (group_of[a] != group_of[b]) {
          group_pair_now[gp] = true;
          if (!group_pair[gp]) {
            group_pair[gp] = true;
            --group_pairs_left;
          }
        }
      }
      if (o.max_peers > 0 && targets.size() > std::size_t(o.max_peers))
        fail(fleet[a].host + " probes more than --max-peers");
    }
    if (group_pairs_left == 0 && periods_groups == 0) periods_groups = p + 1;
    if (host_pairs_left == 0) periods_hosts = p + 1;
    // Per-host figures over the first periods (they repeat).
    if (p < 8) {
      for (std::size_t a = 0; a < n; ++a) {
        out_peers.Add(static_cast<double>(out[a].size()));
        in_peers.Add(static_cast<double>(in[a].size()));
        // One connection per peer and rail each way: a rail's device holds
        // the ones it opened and the ones it answers.
        conns.Add(static_cast<double>(out[a].size() + in[a].size()));
        own_peers.Add(
            static_cast<double>(s.Full() ? out[a].size() : detail[a].size()));
        if (p > 0) {
          auto fresh = [](const std::vector<int>& now,
                          const std::vector<int>& before) {
            int k = 0;
            for (int x : now) {
              if (std::find(before.begin(), before.end(), x) == before.end())
                ++k;
            }
            return k;
          };
          new_out.Add(fresh(out[a], prev_out[a]));
          std::vector<int> both = out[a];
          both.insert(both.end(), in[a].begin(), in[a].end());
          std::vector<int> before = prev_out[a];
          before.insert(before.end(), prev_in[a].begin(), prev_in[a].end());
          new_exchange.Add(fresh(both, before));
        }
      }
      if (o.check && !s.Full() && o.max_connections > 0 &&
          conns.max > o.max_connections) {
        fail("a device holds more than --max-connections connections");
        o.max_connections = 0;  // once
      }
      if (o.check && s.Full() == false && o.representatives > 0) {
        // Every ordered pair of groups in every period when the bounds
        // leave the groups room to reach every other group.
        const int m = o.hosts / o.groups;
        const auto share = s.Share(fleet[0].host);
        if (share.second * m >= o.groups - 1) {
          for (std::size_t x = 0; x < g; ++x) {
            for (std::size_t y = 0; y < g; ++y) {
              if (x != y && !group_pair_now[x * g + y]) {
                fail("group pair " + std::to_string(x) + "," +
                     std::to_string(y) + " not probed in period " +
                     std::to_string(p));
                x = g;
                break;
              }
            }
          }
        }
      }
      prev_out = out;
      prev_in = in;
    }
  }
  const double probes_per_pair_s = o.operations * o.iterations / o.interval_s;
  std::printf(
      "fleet: %d hosts, %zu groups, %d rails; max_peers %d, "
      "representatives %d, max_connections %d, detail_peers %d, "
      "rotation %.0f s%s\n",
      o.hosts, s.groups(), o.rails, o.max_peers, o.representatives,
      o.max_connections, o.detail_peers, o.rotation_s,
      s.Full() ? " (full mesh: within the bound)" : "");
  std::printf("peers probed per host: mean %.1f, max %.0f\n", out_peers.Mean(),
              out_peers.max);
  std::printf("hosts probing a host:  mean %.1f, max %.0f\n", in_peers.Mean(),
              in_peers.max);
  std::printf(
      "connections per device (probing + probed, one rail each): mean %.1f, "
      "max %.0f\n",
      conns.Mean(), conns.max);
  std::printf("probes per second per host: %.0f (x %d rails x %d ops x %d)\n",
              out_peers.max * o.rails * probes_per_pair_s, o.rails,
              o.operations, o.iterations);
  std::printf("new connections per second per device: mean %.2f, max %.2f\n",
              new_out.Mean() / o.rotation_s, new_out.max / o.rotation_s);
  std::printf(
      "address exchanges per second per host (new peers out + in): "
      "mean %.2f, max %.2f\n",
      new_exchange.Mean() / o.rotation_s, new_exchange.max / o.rotation_s);
  std::size_t groups_ever = 0;
  for (const auto& seen : groups_seen) {
    groups_ever = std::max<std::size_t>(
        groups_ever,
        static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true)));
  }
  double series = 0;
  double grouped = 0;
  if (s.Full()) {
    series = FixedSeries(o.rails) + own_peers.max * (o.rails * kPairSeries + 1);
    grouped = FixedSeries(o.rails) +
              own_peers.max * (o.rails * kPairSeriesGrouped + 1) +
              static_cast<double>(o.rails * o.operations * 36) *
                  static_cast<double>(groups_ever);
  } else {
    // Detail pairs per pair; every probe per group (ok count and RTT sum,
    // one series each per group probed so far, the host's own included);
    // the own group's histograms per device and operation.
    series = FixedSeries(o.rails) +
             own_peers.max * (o.rails * kDetailPairSeries + 1) +
             2.0 * static_cast<double>(groups_ever) +
             o.rails * o.operations * kCoarseHistogramSeries;
    grouped = series;
  }
  std::printf(
      "series per host: %.0f; with group_by %.0f (%.0f peers per pair, "
      "%zu groups probed so far)\n",
      series, grouped, own_peers.max, groups_ever);
  std::printf("schedule cost: %.1f us per Targets() of one host\n",
              targets_seconds / static_cast<double>(targets_calls) * 1e6);
  if (periods_groups > 0) {
    std::printf("every group pair probed after %llu periods (%.0f s)\n",
                static_cast<unsigned long long>(periods_groups),
                static_cast<double>(periods_groups) * o.rotation_s);
  } else {
    fail("not every group pair probed");
  }
  if (!o.coverage) {
  } else if (periods_hosts > 0) {
    std::printf("every host pair probed after %llu periods (%.1f min)\n",
                static_cast<unsigned long long>(periods_hosts),
                static_cast<double>(periods_hosts) * o.rotation_s / 60);
    std::printf("host pairs of two groups probed from both ends: %zu\n",
                both_ends);
  } else {
    fail("not every host pair probed within " + std::to_string(limit) +
         " periods");
  }
  if (o.check && o.coverage && !s.Full()) {
    // Every host pair within ceil(m/2) x P / c periods: each host walks
    // half of every other group (of at most m hosts), visiting each once
    // per P / c periods, P the stride of the cross positions (the least
    // at or above G - 1 sharing no factor with a group's size), c the
    // fewest cross-group peers of a host. And in-degree bounded like
    // out-degree.
    const int m = (o.hosts + o.groups - 1) / o.groups;
    const int m_low = o.hosts / o.groups;
    int stride = std::max(1, o.groups - 1);
    while (std::gcd(stride, m) != 1 || std::gcd(stride, m_low) != 1) ++stride;
    int c = o.max_peers;
    for (const auto& h : fleet) c = std::min(c, s.Share(h.host).second);
    c = std::max(1, c);
    const std::uint64_t bound =
        static_cast<std::uint64_t>((m + 1) / 2 * stride + c - 1) / c + 1;
    if (periods_hosts == 0 || periods_hosts > bound)
      fail("host pairs took more than " + std::to_string(bound) + " periods");
    if (both_ends > 0 && m_low > 1)
      fail("host pairs of two groups probed from both ends");
    if (in_peers.max > 2 * out_peers.max)
      fail("a host is probed by more than twice the peers a host probes");
  }
  if (o.faults > 0) {
    rnic::sim::SimFleet sf;
    sf.rails = o.rails;
    sf.groups = o.groups;
    sf.group_of = group_of;
    const int periods =
        std::max(1, static_cast<int>(o.window_s / o.rotation_s + 0.5));
    std::vector<rnic::sim::Probe> probes;
    for (int p = 0; p < periods; ++p) {
      for (std::size_t a = 0; a < n; ++a) {
        for (const auto& t : s.Targets(fleet[a].host, base + p)) {
          const int b = index(t);
          const bool per_pair =
              s.Full() ||
              std::binary_search(detail[a].begin(), detail[a].end(), b);
          probes.push_back({static_cast<std::uint32_t>(a),
                            static_cast<std::uint32_t>(b),
                            static_cast<std::uint16_t>(p), per_pair});
        }
      }
    }
    const rnic::sim::Evaluator eval(sf, std::move(probes), periods,
                                    o.rotation_s);
    const rnic::sim::Holds holds;
    std::mt19937 rng(1);  // the same faults every run
    auto pick = [&rng](int below) {
      return std::uniform_int_distribution<int>(0, below - 1)(rng);
    };
    using rnic::sim::FaultKind;
    const FaultKind kinds[] = {FaultKind::kHost, FaultKind::kCable,
                               FaultKind::kTor, FaultKind::kPath,
                               FaultKind::kPair};
    struct Tally {
      int injected = 0;
      int named = 0;        // exactly, once the window is full of it
      int in_time = 0;      // exactly, 3 rotation periods after its start
      int other_named = 0;  // something else named at some moment
      std::vector<double> detect_s;
    };
    std::map<FaultKind, Tally> tally;
    const double deadline = 3 * o.rotation_s;
    for (int i = 0; i < o.faults; ++i) {
      rnic::sim::Fault f;
      f.kind = kinds[i % 5];
      switch (f.kind) {
        case FaultKind::kHost:
          f.a = pick(o.hosts);
          break;
        case FaultKind::kCable:
          f.a = pick(o.hosts);
          f.b = pick(o.rails);
          break;
        case FaultKind::kTor:
          f.a = pick(o.groups);
          break;
        case FaultKind::kPath:
          f.a = pick(o.groups);
          do f.b = pick(o.groups);
          while (f.b == f.a);
          break;
        case FaultKind::kPair:
          // Within a group, a pair with per-pair series both ways.
          f.a = pick(o.hosts);
          {
            const int g0 = f.a % o.groups;
            const int size =
                o.hosts / o.groups + (g0 < o.hosts % o.groups ? 1 : 0);
            do f.b = g0 + o.groups * pick(size);
            while (f.b == f.a);
          }
          break;
      }
      auto& t = tally[f.kind];
      ++t.injected;
      const double window = eval.window_s();
      // The conditions every second of the fault, the window filling up,
      // then full; the alerts evaluated every eval_s at every phase.
      const int horizon = static_cast<int>(window + 3 * holds.eval_s);
      std::vector<rnic::sim::Suspects> at(static_cast<std::size_t>(horizon));
      for (int sec = 1; sec < horizon; ++sec) {
        at[static_cast<std::size_t>(sec)] =
            eval.Evaluate(f, std::min<double>(sec, window));
      }
      const int step = static_cast<int>(holds.eval_s);
      bool wrong = false;
      double detect = -1;  // the earliest firing over the phases
      for (int phase = 1; phase <= step && !wrong; ++phase) {
        std::vector<rnic::sim::Suspects> evals;
        for (int sec = phase; sec < horizon; sec += step) {
          evals.push_back(at[static_cast<std::size_t>(sec)]);
          const auto fired = rnic::sim::Fired(evals, holds);
          if (!rnic::sim::NamedNothingElse(sf, f, fired)) {
            wrong = true;
            break;
          }
          if (f.kind != FaultKind::kPair &&
              rnic::sim::NamedCorrectly(f, fired) &&
              (detect < 0 || sec < detect)) {
            detect = sec;
          }
        }
      }
      t.other_named += wrong ? 1 : 0;
      if (f.kind == FaultKind::kPair) {
        t.named += rnic::sim::NamedCorrectly(f, eval.Evaluate(f, window));
        continue;
      }
      if (!rnic::sim::NamedCorrectly(f, eval.Evaluate(f, window))) {
        continue;
      }
      ++t.named;
      if (detect < 0) continue;
      t.detect_s.push_back(detect);
      if (detect <= deadline && !wrong) ++t.in_time;
    }
    std::printf(
        "faults named exactly by the suspect alerts' logic (%.0f s rate "
        "window, evaluated every %.0f s, for: %.0f s, the path's %.0f s; "
        "detected = the first evaluation where the alert fires, at the "
        "evaluations' best phase):\n",
        window_s_of(periods, o.rotation_s), holds.eval_s, holds.host_s,
        holds.path_s);
    int all = 0;
    int all_in_time = 0;
    for (auto& [kind, t] : tally) {
      std::string detect;
      if (auto& d = t.detect_s; !d.empty()) {
        std::sort(d.begin(), d.end());
        char buf[128];
        std::snprintf(buf, sizeof buf,
                      "; detected after %.0f s (median), %.0f s (max); "
                      "%d within %.0f s",
                      d[d.size() / 2], d.back(), t.in_time, deadline);
        detect = buf;
      }
      std::printf(
          "  %-28s %4d of %4d (%.1f %%)%s, something else named: "
          "%d%s\n",
          rnic::sim::FaultName(kind), t.named, t.injected,
          100.0 * t.named / t.injected,
          kind == FaultKind::kPair ? " nothing fired" : "", t.other_named,
          detect.c_str());
      if (kind != FaultKind::kPair) {
        all += t.injected;
        all_in_time += t.in_time;
      }
      if (!o.check) continue;
      if (kind == FaultKind::kPair && (t.named != t.injected || t.other_named))
        fail("a single bad pair named something");
      if (kind != FaultKind::kPair && t.named * 100 < t.injected * 95)
        fail(std::string(rnic::sim::FaultName(kind)) +
             " named in less than 95 % of the faults");
      if (kind != FaultKind::kPair && t.in_time * 100 < t.injected * 95)
        fail(std::string(rnic::sim::FaultName(kind)) +
             " named within 3 rotation periods in less than 95 % of the "
             "faults");
    }
    if (all > 0) {
      std::printf(
          "named exactly within %.0f s (3 rotation periods), nothing else "
          "named: %d of %d (%.1f %%)\n",
          deadline, all_in_time, all, 100.0 * all_in_time / all);
    }
  }
  return failures == 0 ? 0 : 1;
}
