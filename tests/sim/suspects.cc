#include "tests/sim/suspects.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <type_traits>

namespace rnic::sim {
namespace {

// Whether the probes from `a` to `b` on rail `r` fail under `f`.
bool Fails(const SimFleet& fleet, const Fault& f, int a, int b, int r) {
  const auto& g = fleet.group_of;
  switch (f.kind) {
    case FaultKind::kHost:
      return a == f.a || b == f.a;
    case FaultKind::kCable:
      return (a == f.a || b == f.a) && r == f.b;
    case FaultKind::kTor:
      return (g[a] == f.a) != (g[b] == f.a);
    case FaultKind::kPath:
      return (g[a] == f.a && g[b] == f.b) || (g[a] == f.b && g[b] == f.a);
    case FaultKind::kPair:
      return a == f.a && b == f.b;
  }
  return false;
}

}  // namespace

const char* FaultName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kHost:
      return "host";
    case FaultKind::kCable:
      return "cable (one rail of a host)";
    case FaultKind::kTor:
      return "ToR uplinks";
    case FaultKind::kPath:
      return "path between two ToRs";
    case FaultKind::kPair:
      return "single pair";
  }
  return "";
}

Evaluator::Evaluator(const SimFleet& fleet, std::vector<Probe> probes,
                     int periods, double period_s, Thresholds t)
    : fleet_(fleet),
      probes_(std::move(probes)),
      periods_(periods),
      period_s_(period_s),
      t_(t) {
  const auto& grp = fleet_.group_of;
  const std::size_t n = grp.size();
  const std::size_t groups = static_cast<std::size_t>(fleet_.groups);
  by_host_.resize(n);
  by_group_.resize(groups);
  partners_.assign(n, 0);
  group_peers_.assign(groups, 0);
  host_group_periods_.assign(n * groups, 0);
  group_pair_hosts_.assign(groups * groups, 0);
  group_pairs_defined_.assign(groups, 0);
  for (std::uint32_t i = 0; i < probes_.size(); ++i) {
    const auto& p = probes_[i];
    by_host_[p.a].push_back(i);
    by_host_[p.b].push_back(i);
    by_group_[grp[p.a]].push_back(i);
    if (grp[p.b] != grp[p.a]) by_group_[grp[p.b]].push_back(i);
    if (host_group_periods_[p.a * groups + grp[p.b]]++ == 0)
      ++group_pair_hosts_[grp[p.a] * groups + grp[p.b]];
    if (p.detail && pair_periods_[std::uint64_t{p.a} * n + p.b]++ == 0) {
      // A pair counts at both ends, once however many ends probe it.
      const std::uint64_t lo = std::min(p.a, p.b);
      const std::uint64_t hi = std::max(p.a, p.b);
      if (partner_pairs_.insert(lo * n + hi).second) {
        for (std::uint32_t h : {p.a, p.b}) {
          if (partners_[h]++ == 0) ++group_peers_[grp[h]];
        }
      }
    }
  }
  for (std::size_t s = 0; s < groups; ++s) {
    for (std::size_t d = 0; d < groups; ++d) {
      if (group_pair_hosts_[s * groups + d] > 0) ++group_pairs_defined_[d];
    }
  }
}

Suspects Evaluator::Evaluate(const Fault& fault, double fail_s) const {
  const auto& grp = fleet_.group_of;
  const std::size_t n = grp.size();
  const std::size_t groups = static_cast<std::size_t>(fleet_.groups);
  const int rails = fleet_.rails;
  // Share of each period the fault covers (it started fail_s before the
  // end of the window).
  std::vector<double> frac(static_cast<std::size_t>(periods_));
  const double start = window_s() - fail_s;
  for (int p = 0; p < periods_; ++p) {
    const double lo = std::max(start, p * period_s_);
    const double hi = (p + 1) * period_s_;
    frac[static_cast<std::size_t>(p)] = hi > lo ? (hi - lo) / period_s_ : 0.0;
  }
  const std::vector<std::uint32_t>* candidates = nullptr;
  switch (fault.kind) {
    case FaultKind::kHost:
    case FaultKind::kCable:
    case FaultKind::kPair:
      candidates = &by_host_[static_cast<std::size_t>(fault.a)];
      break;
    case FaultKind::kTor:
    case FaultKind::kPath:
      candidates = &by_group_[static_cast<std::size_t>(fault.a)];
      break;
  }
  // The failures of the per-pair series (per rail) and of the per-group
  // counters (rails summed).
  std::unordered_map<std::uint64_t, std::vector<double>> pair_failed;
  std::unordered_map<std::uint64_t, double> host_group_failed;
  for (std::uint32_t i : *candidates) {
    const auto& p = probes_[i];
    const double f = frac[p.period];
    if (f == 0) continue;
    double sum = 0;
    std::vector<double>* per_rail = nullptr;
    for (int r = 0; r < rails; ++r) {
      if (!Fails(fleet_, fault, static_cast<int>(p.a), static_cast<int>(p.b),
                 r))
        continue;
      sum += f;
      if (p.detail) {
        if (per_rail == nullptr) {
          auto& v = pair_failed[std::uint64_t{p.a} * n + p.b];
          v.resize(static_cast<std::size_t>(rails), 0.0);
          per_rail = &v;
        }
        (*per_rail)[static_cast<std::size_t>(r)] += f;
      }
    }
    if (sum > 0) host_group_failed[p.a * groups + grp[p.b]] += sum / rails;
  }
  // Per host and per (host, rail): the pairs at both ends, per (host,
  // partner) the worse of the two directions (per rail, and over the
  // rails), then the mean over its partners and how many see it fail.
  struct PairEnds {
    double all = 0;
    std::vector<double> rail;
  };
  std::map<std::pair<int, int>, PairEnds> undirected;
  for (const auto& [key, failed] : pair_failed) {
    const int a = static_cast<int>(key / n);
    const int b = static_cast<int>(key % n);
    const double total = pair_periods_.at(key);
    auto& e = undirected[{std::min(a, b), std::max(a, b)}];
    e.rail.resize(static_cast<std::size_t>(rails), 0.0);
    double all = 0;
    for (int r = 0; r < rails; ++r) {
      const double x = failed[static_cast<std::size_t>(r)] / total;
      all += x;
      auto& y = e.rail[static_cast<std::size_t>(r)];
      y = std::max(y, x);
    }
    e.all = std::max(e.all, all / rails);
  }
  // Groups with a pair of their own hosts failing at all: never a path's.
  std::set<int> own_failing;
  for (const auto& [ends, e] : undirected) {
    if (grp[ends.first] == grp[ends.second] && e.all > t_.source)
      own_failing.insert(grp[ends.first]);
  }
  std::map<int, double> peer_sum;
  std::map<int, int> peer_failing;
  std::map<std::pair<int, int>, double> link_sum;
  std::map<std::pair<int, int>, int> link_failing;
  for (const auto& [ends, e] : undirected) {
    for (int h : {ends.first, ends.second}) {
      for (int r = 0; r < rails; ++r) {
        const double x = e.rail[static_cast<std::size_t>(r)];
        link_sum[{h, r}] += x;
        if (x > t_.source) ++link_failing[{h, r}];
      }
      peer_sum[h] += e.all;
      if (e.all > t_.source) ++peer_failing[h];
    }
  }
  auto peer_mean = [&](int b) { return peer_sum[b] / partners_[b]; };
  // Share of a host's rails failing.
  std::map<int, int> rails_failing;
  for (const auto& [k, sum] : link_sum) {
    if (sum / partners_[k.first] > t_.failing) ++rails_failing[k.first];
  }
  std::vector<int> group_bad(groups, 0);
  for (const auto& [b, _] : peer_sum) {
    if (peer_mean(b) > t_.failing && peer_failing[b] >= t_.host_sources)
      ++group_bad[grp[b]];
  }
  Suspects out;
  for (const auto& [b, _] : peer_sum) {
    const std::size_t g = static_cast<std::size_t>(grp[b]);
    if (peer_failing[b] >= t_.host_sources && peer_mean(b) > t_.failing &&
        2 * group_bad[g] < group_peers_[g] && 2 * rails_failing[b] >= rails)
      out.hosts.insert(b);
  }
  for (const auto& [k, sum] : link_sum) {
    if (link_failing[k] >= t_.host_sources &&
        sum / partners_[k.first] > t_.failing &&
        2 * rails_failing[k.first] < rails)
      out.links.insert(k);
  }
  // Group pairs: mean over the source hosts, and hosts failing.
  std::map<std::size_t, double> gg_sum;
  std::map<std::size_t, int> gg_hosts_bad;
  for (const auto& [key, failed] : host_group_failed) {
    const std::size_t a = key / groups;
    const std::size_t d = key % groups;
    const double r = failed / host_group_periods_[key];
    const std::size_t k = static_cast<std::size_t>(grp[a]) * groups + d;
    gg_sum[k] += r;
    if (r > t_.failing) ++gg_hosts_bad[k];
  }
  // Per group the other groups it fails with at all, either way: a path
  // is one group pair; a ToR's own hosts probe every group each period.
  std::map<std::size_t, int> dst_failing;
  std::map<std::size_t, std::set<std::size_t>> failing_with;
  std::set<std::size_t> failing_pairs;
  for (const auto& [k, sum] : gg_sum) {
    const double r = sum / group_pair_hosts_[k];
    const std::size_t s = k / groups;
    const std::size_t d = k % groups;
    if (r > t_.source && s != d) {
      failing_with[s].insert(d);
      failing_with[d].insert(s);
    }
    if (r > t_.failing) {
      failing_pairs.insert(k);
      ++dst_failing[d];
    }
  }
  // A suspect host explains its group's failures (in a small group one
  // host is a large share of the probes into it).
  std::set<std::size_t> host_groups;
  for (int h : out.hosts) host_groups.insert(static_cast<std::size_t>(grp[h]));
  for (const auto& [d, bad] : dst_failing) {
    if (bad >= 2 && 2 * bad > group_pairs_defined_[d] &&
        host_groups.count(d) == 0)
      out.tors.insert(static_cast<int>(d));
  }
  for (std::size_t k : failing_pairs) {
    const std::size_t s = k / groups;
    const std::size_t d = k % groups;
    // A path fails both ways: its hosts failing at both ends.
    if (s == d ||
        gg_hosts_bad[k] + gg_hosts_bad[d * groups + s] < t_.path_hosts)
      continue;
    if (failing_with[s].size() > static_cast<std::size_t>(t_.path_spread) ||
        failing_with[d].size() > static_cast<std::size_t>(t_.path_spread))
      continue;
    if (out.tors.count(static_cast<int>(s)) ||
        out.tors.count(static_cast<int>(d)) || host_groups.count(s) ||
        host_groups.count(d) || own_failing.count(static_cast<int>(s)) ||
        own_failing.count(static_cast<int>(d)))
      continue;
    out.paths.insert({static_cast<int>(s), static_cast<int>(d)});
  }
  return out;
}

Suspects Fired(const std::vector<Suspects>& evals, const Holds& h) {
  // Evaluations that must all name an element: the one where it went
  // pending and every one until `for` has passed.
  auto held = [&](double for_s) {
    return static_cast<std::size_t>(std::ceil(for_s / h.eval_s - 1e-9)) + 1;
  };
  auto keep = [&](auto member, double for_s) {
    using Set = std::remove_cvref_t<decltype(evals.back().*member)>;
    const std::size_t n = held(for_s);
    if (evals.size() < n) return Set{};
    Set out = evals.back().*member;
    for (std::size_t i = evals.size() - n; i + 1 < evals.size(); ++i) {
      const Set& at = evals[i].*member;
      for (auto it = out.begin(); it != out.end();) {
        it = at.count(*it) ? std::next(it) : out.erase(it);
      }
    }
    return out;
  };
  Suspects out;
  out.hosts = keep(&Suspects::hosts, h.host_s);
  out.links = keep(&Suspects::links, h.link_s);
  out.tors = keep(&Suspects::tors, h.tor_s);
  out.paths = keep(&Suspects::paths, h.path_s);
  return out;
}

bool NamedCorrectly(const Fault& fault, const Suspects& s) {
  switch (fault.kind) {
    case FaultKind::kHost:
      return s.hosts == std::set<int>{fault.a} && s.links.empty() &&
             s.tors.empty() && s.paths.empty();
    case FaultKind::kCable:
      return s.links == std::set<std::pair<int, int>>{{fault.a, fault.b}} &&
             s.hosts.empty() && s.tors.empty() && s.paths.empty();
    case FaultKind::kTor:
      return s.tors == std::set<int>{fault.a} && s.hosts.empty() &&
             s.links.empty() && s.paths.empty();
    case FaultKind::kPath: {
      if (!s.hosts.empty() || !s.links.empty() || !s.tors.empty() ||
          s.paths.empty())
        return false;
      for (const auto& [x, y] : s.paths) {
        if (!((x == fault.a && y == fault.b) || (x == fault.b && y == fault.a)))
          return false;
      }
      return true;
    }
    case FaultKind::kPair:
      return s.empty();
  }
  return false;
}

bool NamedNothingElse(const SimFleet& fleet, const Fault& fault,
                      const Suspects& s) {
  (void)fleet;
  if (s.empty()) return true;
  Suspects right;
  switch (fault.kind) {
    case FaultKind::kHost:
      right.hosts = {fault.a};
      break;
    case FaultKind::kCable:
      right.links = {{fault.a, fault.b}};
      break;
    case FaultKind::kTor:
      right.tors = {fault.a};
      break;
    case FaultKind::kPath:
      right.paths = {{fault.a, fault.b}, {fault.b, fault.a}};
      break;
    case FaultKind::kPair:
      return false;
  }
  auto subset = [](const auto& x, const auto& y) {
    return std::includes(y.begin(), y.end(), x.begin(), x.end());
  };
  return subset(s.hosts, right.hosts) && subset(s.links, right.links) &&
         subset(s.tors, right.tors) && subset(s.paths, right.paths);
}

}  // namespace rnic::sim
