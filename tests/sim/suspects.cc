#include "tests/sim/suspects.h"

#include <map>

namespace rnic::sim {
namespace {

// Share of the probes from `a` to `b` that fail under `f`.
double FailShare(const SimFleet& fleet, const Fault& f, int a, int b) {
  const auto& g = fleet.group_of;
  switch (f.kind) {
    case FaultKind::kHost:
      return a == f.a || b == f.a ? 1 : 0;
    case FaultKind::kCable:
      return a == f.a || b == f.a ? 1.0 / fleet.rails : 0;
    case FaultKind::kTor:
      return (g[a] == f.a) != (g[b] == f.a) ? 1 : 0;
    case FaultKind::kPath:
      return (g[a] == f.a && g[b] == f.b) || (g[a] == f.b && g[b] == f.a) ? 1
                                                                          : 0;
    case FaultKind::kPair:
      return a == f.a && b == f.b ? 1 : 0;
  }
  return 0;
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

Evaluator::Evaluator(const SimFleet& fleet, Window window, bool full_mesh)
    : fleet_(fleet), window_(std::move(window)), full_mesh_(full_mesh) {
  const auto& grp = fleet_.group_of;
  const std::size_t n = grp.size();
  const std::size_t groups = static_cast<std::size_t>(fleet_.groups);
  host_group_total_.assign(n * groups, 0);
  for (const auto& period : window_) {
    for (std::size_t a = 0; a < n; ++a) {
      for (int b : period[a]) {
        host_group_total_[a * groups + static_cast<std::size_t>(grp[b])] += 1;
        if (full_mesh_ || grp[a] == grp[b]) pair_total_[a * n + b] += 1;
      }
    }
  }
}

Suspects Evaluator::Evaluate(const Fault& fault, int from) const {
  const auto& grp = fleet_.group_of;
  const std::size_t n = grp.size();
  const std::size_t groups = static_cast<std::size_t>(fleet_.groups);
  // The failures of instance_peer (pairs with per-pair series) and of
  // instance_dst_group; the totals are the window's.
  std::unordered_map<std::uint64_t, double> pair_failed;
  std::vector<double> host_group_failed(n * groups, 0);
  for (std::size_t p = static_cast<std::size_t>(from); p < window_.size();
       ++p) {
    const auto& period = window_[p];
    for (std::size_t a = 0; a < n; ++a) {
      for (int b : period[a]) {
        const double f = FailShare(fleet_, fault, static_cast<int>(a), b);
        if (f == 0) continue;
        host_group_failed[a * groups + static_cast<std::size_t>(grp[b])] += f;
        if (full_mesh_ || grp[a] == grp[b]) pair_failed[a * n + b] += f;
      }
    }
  }
  auto pair_ratio = [&](std::uint64_t key, double total) {
    auto it = pair_failed.find(key);
    return it == pair_failed.end() ? 0.0 : it->second / total;
  };
  // peer: mean ratio over the sources, sources above 5 %.
  std::map<int, std::pair<double, int>> peer_sum;  // sum of ratios, sources
  std::map<int, int> peer_failing;
  for (const auto& [key, total] : pair_total_) {
    const int b = static_cast<int>(key % n);
    const double r = pair_ratio(key, total);
    auto& ps = peer_sum[b];
    ps.first += r;
    ps.second += 1;
    if (r > 0.05) ++peer_failing[b];
  }
  // src_group_dst_group: mean over the source hosts; and how many source
  // hosts are above one half.
  std::vector<double> gg_sum(groups * groups, 0);
  std::vector<int> gg_n(groups * groups, 0);
  std::vector<int> gg_hosts_bad(groups * groups, 0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t dg = 0; dg < groups; ++dg) {
      const double total = host_group_total_[a * groups + dg];
      if (total == 0) continue;
      const double r = host_group_failed[a * groups + dg] / total;
      const std::size_t k = static_cast<std::size_t>(grp[a]) * groups + dg;
      gg_sum[k] += r;
      gg_n[k] += 1;
      if (r > 0.5) ++gg_hosts_bad[k];
    }
  }
  auto gg = [&](std::size_t k) { return gg_sum[k] / gg_n[k]; };
  // dst_group: share of the source groups mostly failing into it.
  std::vector<bool> tor(groups, false);
  Suspects out;
  for (std::size_t dg = 0; dg < groups; ++dg) {
    int defined = 0;
    int bad = 0;
    for (std::size_t sg = 0; sg < groups; ++sg) {
      const std::size_t k = sg * groups + dg;
      if (gg_n[k] == 0) continue;
      ++defined;
      if (gg(k) > 0.5) ++bad;
    }
    if (defined > 0 && static_cast<double>(bad) / defined > 0.5 && bad >= 2) {
      tor[dg] = true;
      out.tors.insert(static_cast<int>(dg));
    }
  }
  // Host: at least 3 sources see it fail, more than half on average,
  // unless half of its group's hosts look the same.
  std::vector<int> group_hosts(groups, 0);
  std::vector<int> group_bad(groups, 0);
  for (const auto& [peer, ps] : peer_sum) {
    const std::size_t pg = static_cast<std::size_t>(grp[peer]);
    ++group_hosts[pg];
    if (ps.first / ps.second > 0.5) ++group_bad[pg];
  }
  for (const auto& [peer, ps] : peer_sum) {
    const std::size_t pg = static_cast<std::size_t>(grp[peer]);
    if (peer_failing[peer] >= 3 && ps.first / ps.second > 0.5 &&
        static_cast<double>(group_bad[pg]) / group_hosts[pg] < 0.5) {
      out.hosts.insert(peer);
    }
  }
  // Path: a group pair mostly failing from at least 2 hosts, neither end a
  // suspect ToR, not a group with itself.
  for (std::size_t sg = 0; sg < groups; ++sg) {
    for (std::size_t dg = 0; dg < groups; ++dg) {
      const std::size_t k = sg * groups + dg;
      if (sg == dg || gg_n[k] == 0 || tor[sg] || tor[dg]) continue;
      if (gg(k) > 0.5 && gg_hosts_bad[k] >= 2) {
        out.paths.insert({static_cast<int>(sg), static_cast<int>(dg)});
      }
    }
  }
  return out;
}

bool NamedCorrectly(const SimFleet& fleet, const Fault& fault,
                    const Suspects& s) {
  (void)fleet;
  switch (fault.kind) {
    case FaultKind::kHost:
    case FaultKind::kCable:
      return s.hosts == std::set<int>{fault.a} && s.tors.empty() &&
             s.paths.empty();
    case FaultKind::kTor:
      return s.tors == std::set<int>{fault.a} && s.hosts.empty() &&
             s.paths.empty();
    case FaultKind::kPath: {
      if (!s.hosts.empty() || !s.tors.empty() || s.paths.empty()) return false;
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

}  // namespace rnic::sim
