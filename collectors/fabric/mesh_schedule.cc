#include "collectors/fabric/mesh_schedule.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace rnic::fabric {
namespace {

// FNV-1a: the same on every platform and build, unlike std::hash, so every
// exporter orders the groups alike.
std::uint64_t Fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void SortUnique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

MeshSchedule::MeshSchedule(const std::vector<MeshMember>& members,
                           MeshBounds bounds) {
  std::map<std::string, std::string> group_of;
  for (const auto& m : members) group_of.emplace(m.host, m.group);
  std::map<std::string, std::vector<std::string>> by_group;
  for (const auto& [host, group] : group_of) by_group[group].push_back(host);
  for (auto& [name, hosts] : by_group) groups_.push_back({name, hosts, 0, 0});
  // Ordered by hash, not name: neighbouring names (rack-01, rack-02) are
  // often neighbours in the fabric, and the cross-group windows should mix.
  std::sort(groups_.begin(), groups_.end(), [](const Group& a, const Group& b) {
    return std::tuple(Fnv1a(a.name), a.name) <
           std::tuple(Fnv1a(b.name), b.name);
  });
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    for (std::size_t r = 0; r < groups_[g].members.size(); ++r) {
      index_.push_back({groups_[g].members[r], Where{g, r}});
    }
  }
  std::sort(index_.begin(), index_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  const long n = static_cast<long>(index_.size());
  const long peers = bounds.max_peers;
  const long k = std::max(1, bounds.representatives);
  full_ = peers <= 0 || n - 1 <= peers;
  // Cross positions cycle through the other groups with this stride: the
  // least at or above their number that shares no factor with a group's
  // size, so that the positions each host takes (every m-th of its
  // group's) reach every other group. Positions past the other groups
  // are holes.
  stride_ = std::max<std::uint64_t>(1, groups_.size() - 1);
  while (std::any_of(groups_.begin(), groups_.end(), [&](const Group& g) {
    return std::gcd<std::uint64_t>(stride_, g.members.size()) != 1;
  })) {
    ++stride_;
  }
  const long other_groups = static_cast<long>(groups_.size()) - 1;
  const long positions = other_groups > 0 ? static_cast<long>(stride_) : 0;
  // Per direction: a host is probed by about as many hosts as it probes;
  // an eighth of the bound is kept for the cross-group ones, whose spread
  // over a group's members is even only on average (rnic_fleet_sim checks
  // the bound on the 10,000-host fleet).
  long budget = peers;
  if (bounds.max_connections > 0) {
    const long c = bounds.max_connections;
    budget = std::min(budget, std::max(1L, (c - c / 8) / 2));
  }
  for (auto& g : groups_) {
    const long m = static_cast<long>(g.members.size());
    if (full_) {
      g.own = static_cast<int>(m - 1);
      g.cross = static_cast<int>(n - m);
      continue;
    }
    // The next m/2 members: every pair of the group once.
    const long own_want = m / 2;
    // k hosts of every other group per period from the group as a whole.
    long cross_want = (k * positions + m - 1) / m;
    cross_want = std::min(cross_want, n - m);
    long cross = cross_want;
    if (own_want + cross_want > budget) {
      // The other groups keep at least what reaches each of them once a
      // period (m * c >= G - 1), within half of the budget, or no group
      // pair would ever be probed.
      const long reach = (positions + m - 1) / m;
      cross = std::min(cross_want, std::max(budget - own_want,
                                            std::min(reach, (budget + 1) / 2)));
    }
    g.cross = static_cast<int>(cross);
    g.own = static_cast<int>(std::min(own_want, budget - cross));
  }
}

const MeshSchedule::Where* MeshSchedule::Find(const std::string& host) const {
  auto it = std::lower_bound(
      index_.begin(), index_.end(), host,
      [](const auto& e, const std::string& h) { return e.first < h; });
  if (it == index_.end() || it->first != host) return nullptr;
  return &it->second;
}

std::size_t MeshSchedule::CrossMember(std::size_t from, std::size_t to,
                                      std::size_t rank, std::uint64_t q) const {
  const std::uint64_t m = groups_[to].members.size();
  // A pair of hosts in two groups is probed by one of its ends only (a
  // round trip measures both directions): host i of `from` takes the
  // members j of `to` with i + j + (from < to) even, host j the others,
  // so each host walks half of every other group.
  const std::uint64_t parity = (rank + (from < to ? 1 : 0)) % 2;
  const std::uint64_t share = (m - parity + 1) / 2;
  // A group of one has no odd half: its member anyway (its pairs are
  // probed from its side), so that every group pair stays probed.
  if (share == 0) return 0;
  // One step along the half per visit of this host to `to`, from an
  // offset shared by two neighbouring source groups, whose hosts probing
  // into `to` are neighbours in rank (of opposite parity, so j and j+1),
  // and one member pair further for the next two: the hosts probing into
  // a group spread evenly over its members.
  const std::uint64_t visit = q / (stride_ * groups_[from].members.size());
  const std::uint64_t offset = from / 2;
  return static_cast<std::size_t>(parity + 2 * ((visit + offset) % share));
}

bool MeshSchedule::AppendNearPeers(const std::string& host, const Where& w,
                                   std::uint64_t period, bool mirrored,
                                   std::vector<std::string>* out) const {
  if (full_) {
    for (const auto& [h, _] : index_) {
      if (h != host) out->push_back(h);
    }
    return false;
  }
  const Group& own = groups_[w.group];
  const std::size_t m = own.members.size();
  if (m < 2 || own.own == 0) return true;
  // A window of offsets 1..m/2 that moves on every period.
  const std::uint64_t half = m / 2;
  for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(own.own); ++i) {
    const std::uint64_t d = 1 + (period * own.own + i) % half;
    out->push_back(own.members[(w.rank + (mirrored ? m - d : d)) % m]);
  }
  return true;
}

std::vector<std::string> MeshSchedule::Detail(const std::string& host,
                                              int n) const {
  std::vector<std::string> out;
  const Where* w = Find(host);
  if (w == nullptr) return out;
  if (full_) {
    for (const auto& [h, _] : index_) {
      if (h != host) out.push_back(h);
    }
    return out;
  }
  const Group& own = groups_[w->group];
  const std::size_t m = own.members.size();
  const std::size_t upto =
      std::min<std::size_t>({static_cast<std::size_t>(std::max(n, 0)),
                             static_cast<std::size_t>(own.own), m / 2});
  for (std::size_t d = 1; d <= upto; ++d) {
    out.push_back(own.members[(w->rank + d) % m]);
  }
  SortUnique(out);
  return out;
}

std::pair<int, int> MeshSchedule::Share(const std::string& host) const {
  const Where* w = Find(host);
  if (w == nullptr) return {0, 0};
  return {groups_[w->group].own, groups_[w->group].cross};
}

std::vector<std::string> MeshSchedule::Targets(const std::string& host,
                                               std::uint64_t period) const {
  std::vector<std::string> out;
  const Where* w = Find(host);
  if (w == nullptr || !AppendNearPeers(host, *w, period, false, &out)) {
    return out;
  }
  const Group& own = groups_[w->group];
  const std::uint64_t c = static_cast<std::uint64_t>(own.cross);
  const std::uint64_t g = groups_.size();
  if (c > 0 && g > 1) {
    // The group's window of m * c positions moves on by itself every
    // period; its host of rank r takes every m-th position from r.
    const std::uint64_t m = own.members.size();
    const std::uint64_t lo = period * m * c;
    for (std::uint64_t s = 0; s < c; ++s) {
      const std::uint64_t q = lo + w->rank + m * s;
      const std::uint64_t off = q % stride_;
      if (off >= g - 1) continue;  // a hole
      const std::size_t to = static_cast<std::size_t>((w->group + 1 + off) % g);
      out.push_back(groups_[to].members[CrossMember(w->group, to, w->rank, q)]);
    }
  }
  SortUnique(out);
  return out;
}

std::vector<std::string> MeshSchedule::Sources(const std::string& host,
                                               std::uint64_t period) const {
  std::vector<std::string> out;
  const Where* w = Find(host);
  if (w == nullptr || !AppendNearPeers(host, *w, period, true, &out)) {
    return out;
  }
  const std::uint64_t g = groups_.size();
  for (std::size_t from = 0; from < g && g > 1; ++from) {
    if (from == w->group) continue;
    const Group& src = groups_[from];
    const std::uint64_t c = static_cast<std::uint64_t>(src.cross);
    if (c == 0) continue;
    // The positions of the source group's window that land in this
    // host's group, then those that land on this host.
    const std::uint64_t m = src.members.size();
    const std::uint64_t t = (w->group + g - from - 1) % g;
    const std::uint64_t lo = period * m * c;
    const std::uint64_t hi = lo + m * c;
    for (std::uint64_t q = lo + (t + stride_ - lo % stride_) % stride_; q < hi;
         q += stride_) {
      const std::size_t rank = static_cast<std::size_t>(q % m);
      if (CrossMember(from, w->group, rank, q) != w->rank) continue;
      out.push_back(src.members[rank]);
    }
  }
  SortUnique(out);
  return out;
}

std::uint64_t MeshPeriod(std::int64_t unix_ms, std::int64_t rotation_ms) {
  if (unix_ms <= 0 || rotation_ms <= 0) return 0;
  return static_cast<std::uint64_t>(unix_ms / rotation_ms);
}

}  // namespace rnic::fabric
