// Fleet simulator of the fabric probe's partial mesh: runs the exporter's
// own schedule (collectors/fabric/mesh_schedule.h) for every host of a
// synthetic fleet and reports, per host, peers probed, connections, probes
// per second, address exchanges and series, and the time until every group
// pair and every host pair has been probed. With --check it exits 1 when a
// coverage property does not hold (the ctest runs a small fleet so).
//
//   rnic_fleet_sim [--hosts N] [--groups G] [--rails R] [--max-peers P]
//                  [--representatives K] [--rotation SECONDS] [--faults N]
//                  [--check]
//
// --faults N injects N single faults in turn (a host, one rail of a host,
// a ToR's uplinks, the path between two ToRs, a single pair) as failures
// of the pairs that cross them over one 5-minute rate window, and counts
// how often the suspect alerts' logic (suspects.h) names exactly the
// faulty element; a single pair must name nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
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
  int max_peers = 64;
  int representatives = 3;
  double rotation_s = 10;
  // The probe's defaults: send and write, 5 ping-pongs each, every second.
  int operations = 2;
  int iterations = 5;
  double interval_s = 1;
  bool check = false;
  int faults = 0;         // single faults injected, in turn of each kind
  double window_s = 300;  // the rules' rate window
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
    } else if (a == "--rotation") {
      o.rotation_s = std::atof(v);
    } else {
      return false;
    }
  }
  return o.hosts > 1 && o.groups >= 1 && o.groups <= o.hosts && o.rails >= 1 &&
         o.rotation_s > 0;
}

// Series of one probed device pair (collectors/fabric/README.md,
// Cardinality): 2 histograms x 36 + 2 probes_total + peer_up, reconnects,
// last_connected; with group_by the histograms leave the pair.
constexpr int kPairSeries = 77;
constexpr int kPairSeriesGrouped = 5;
constexpr int kHistogramSeries = 36;
// Series of the collector that do not depend on peers: peers, pairs,
// scheduled peers, mesh info, cpu, budget delay, and per device responder
// connections and accepted.
int FixedSeries(int rails) { return 6 + 2 * rails; }

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
    std::fprintf(stderr,
                 "usage: rnic_fleet_sim [--hosts N] [--groups G] [--rails R] "
                 "[--max-peers P] [--representatives K] [--rotation S] "
                 "[--faults N] [--check]\n");
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
  MeshSchedule s(fleet, {o.max_peers, o.representatives});
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
  std::vector<bool> host_pair(n * n, false);
  std::vector<bool> group_pair(g * g, false);
  std::size_t host_pairs_left = n * (n - 1);
  std::size_t group_pairs_left = g * (g - 1);
  std::uint64_t periods_groups = 0;
  std::uint64_t periods_hosts = 0;
  // own: the peers probed per pair (all of them in a full mesh, else those
  // of the host's own group); the others count per group.
  Stat out_peers, in_peers, own_peers, new_out, new_own, new_exchange;
  // Groups each host has probed so far: with group_by a histogram per
  // (device, group) stays once created.
  std::vector<std::vector<bool>> groups_seen(n, std::vector<bool>(g, false));
  std::vector<std::vector<int>> prev_out(n), prev_in(n);
  double targets_seconds = 0;
  long targets_calls = 0;
  // Until every host pair is covered, at most this many periods.
  const std::uint64_t limit = 100000;
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
          --host_pairs_left;
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
        std::vector<int> own;
        for (int b : out[a]) {
          if (s.Full() || group_of[b] == group_of[a]) own.push_back(b);
        }
        own_peers.Add(static_cast<double>(own.size()));
        in_peers.Add(static_cast<double>(in[a].size()));
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
          std::vector<int> own_before;
          for (int b : prev_out[a]) {
            if (s.Full() || group_of[b] == group_of[a]) own_before.push_back(b);
          }
          new_own.Add(fresh(own, own_before));
          std::vector<int> both = out[a];
          both.insert(both.end(), in[a].begin(), in[a].end());
          std::vector<int> before = prev_out[a];
          before.insert(before.end(), prev_in[a].begin(), prev_in[a].end());
          new_exchange.Add(fresh(both, before));
        }
      }
      if (o.check && s.Full() == false && o.representatives > 0) {
        // Every ordered pair of groups in every period when the bound
        // leaves the groups room for k representatives.
        const int m = o.hosts / o.groups;
        const int want =
            (o.representatives * (o.groups - 1) + m - 1) / m + (m - 1);
        if (want <= o.max_peers) {
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
      "representatives %d, rotation %.0f s%s\n",
      o.hosts, s.groups(), o.rails, o.max_peers, o.representatives,
      o.rotation_s, s.Full() ? " (full mesh: within the bound)" : "");
  std::printf("peers probed per host: mean %.1f, max %.0f\n", out_peers.Mean(),
              out_peers.max);
  std::printf("hosts probing a host:  mean %.1f, max %.0f\n", in_peers.Mean(),
              in_peers.max);
  std::printf(
      "connections per device (out + in, one rail each): mean %.1f, "
      "max %.0f out, %.0f in\n",
      out_peers.Mean() + in_peers.Mean(), out_peers.max, in_peers.max);
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
  // Groups probed so far that are not the host's own: one counter per
  // device and result (ok, in a healthy fleet) each.
  const double cross_groups =
      s.Full() ? 0 : static_cast<double>(groups_ever) - 1;
  const double per_pair = FixedSeries(o.rails) +
                          own_peers.max * (o.rails * kPairSeries + 1) +
                          o.rails * cross_groups;
  const double grouped =
      FixedSeries(o.rails) +
      own_peers.max * (o.rails * kPairSeriesGrouped + 1) +
      o.rails * cross_groups +
      static_cast<double>(o.rails * o.operations * kHistogramSeries) *
          static_cast<double>(groups_ever);
  std::printf(
      "series per host: %.0f; with group_by %.0f (%.0f peers per pair, "
      "%zu groups probed so far)\n",
      per_pair, grouped, own_peers.max, groups_ever);
  std::printf(
      "series created per minute per host (pairs entering the schedule): "
      "%.0f; with group_by %.0f\n",
      new_own.Mean() * (o.rails * kPairSeries + 1) * 60 / o.rotation_s,
      new_own.Mean() * (o.rails * kPairSeriesGrouped + 1) * 60 / o.rotation_s);
  std::printf("schedule cost: %.1f us per Targets() of one host\n",
              targets_seconds / static_cast<double>(targets_calls) * 1e6);
  if (periods_groups > 0) {
    std::printf("every group pair probed after %llu periods (%.0f s)\n",
                static_cast<unsigned long long>(periods_groups),
                static_cast<double>(periods_groups) * o.rotation_s);
  } else {
    fail("not every group pair probed");
  }
  if (periods_hosts > 0) {
    std::printf("every host pair probed after %llu periods (%.1f min)\n",
                static_cast<unsigned long long>(periods_hosts),
                static_cast<double>(periods_hosts) * o.rotation_s / 60);
  } else {
    fail("not every host pair probed within " + std::to_string(limit) +
         " periods");
  }
  if (o.check && !s.Full()) {
    // Every host pair within (G-1) x largest group / c periods, c the
    // cross-group peers of a host; and in-degree bounded like out-degree.
    const int m = (o.hosts + o.groups - 1) / o.groups;
    const int c = std::max<int>(1, static_cast<int>(out_peers.max) - (m - 1));
    const std::uint64_t bound =
        static_cast<std::uint64_t>((o.groups - 1) * m + c - 1) / c + 1;
    if (periods_hosts == 0 || periods_hosts > bound)
      fail("host pairs took more than " + std::to_string(bound) + " periods");
    if (in_peers.max > 2 * out_peers.max)
      fail("a host is probed by more than twice the peers a host probes");
  }
  if (o.faults > 0) {
    rnic::sim::SimFleet sf;
    sf.rails = o.rails;
    sf.groups = o.groups;
    sf.group_of = group_of;
    rnic::sim::Window window;
    const int periods =
        std::max(1, static_cast<int>(o.window_s / o.rotation_s));
    for (int p = 0; p < periods; ++p) {
      std::vector<std::vector<int>> out(n);
      for (std::size_t a = 0; a < n; ++a) {
        for (const auto& t : s.Targets(fleet[a].host, base + p))
          out[a].push_back(index(t));
      }
      window.push_back(std::move(out));
    }
    const rnic::sim::Evaluator eval(sf, std::move(window), s.Full());
    std::mt19937 rng(1);  // the same faults every run
    auto pick = [&rng](int below) {
      return std::uniform_int_distribution<int>(0, below - 1)(rng);
    };
    using rnic::sim::FaultKind;
    const FaultKind kinds[] = {FaultKind::kHost, FaultKind::kCable,
                               FaultKind::kTor, FaultKind::kPath,
                               FaultKind::kPair};
    std::map<FaultKind, std::pair<int, int>> named;  // correct, injected
    // Periods of failures in the rate window until the fault is named.
    std::map<FaultKind, std::vector<int>> to_detect;
    for (int i = 0; i < o.faults; ++i) {
      rnic::sim::Fault f;
      f.kind = kinds[i % 5];
      switch (f.kind) {
        case FaultKind::kHost:
        case FaultKind::kCable:
          f.a = pick(o.hosts);
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
          // Within a group: a pair probed in every period.
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
      const auto suspects = eval.Evaluate(f);
      auto& [ok, total] = named[f.kind];
      const bool right = rnic::sim::NamedCorrectly(sf, f, suspects);
      ok += right ? 1 : 0;
      ++total;
      if (right && f.kind != FaultKind::kPair) {
        // The fewest recent periods of failure that name it (a fault
        // that has lasted longer fills more of the window).
        int lo = 1;
        int hi = eval.periods();
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          const auto s2 = eval.Evaluate(f, eval.periods() - mid);
          if (rnic::sim::NamedCorrectly(sf, f, s2)) {
            hi = mid;
          } else {
            lo = mid + 1;
          }
        }
        to_detect[f.kind].push_back(lo);
      }
    }
    std::printf(
        "faults named exactly by the suspect alerts' logic (one "
        "%.0f s window):\n",
        periods * o.rotation_s);
    for (const auto& [kind, r] : named) {
      std::string detect;
      if (auto& d = to_detect[kind]; !d.empty()) {
        std::sort(d.begin(), d.end());
        // Plus the alerts' `for: 2m`.
        char buf[96];
        std::snprintf(buf, sizeof buf,
                      "; named after %.0f s (median), %.0f s (max) + 2m for",
                      d[d.size() / 2] * o.rotation_s, d.back() * o.rotation_s);
        detect = buf;
      }
      std::printf(
          "  %-28s %4d of %4d (%.1f %%)%s%s\n", rnic::sim::FaultName(kind),
          r.first, r.second, 100.0 * r.first / r.second,
          kind == FaultKind::kPair ? ", nothing fired" : "", detect.c_str());
      if (!o.check) continue;
      if (kind == FaultKind::kPair && r.first != r.second)
        fail("a single bad pair named something");
      if ((kind == FaultKind::kHost || kind == FaultKind::kTor ||
           kind == FaultKind::kPath) &&
          r.first * 100 < r.second * 95)
        fail(std::string(rnic::sim::FaultName(kind)) +
             " named in less than 95 % of the faults");
    }
  }
  return failures == 0 ? 0 : 1;
}
