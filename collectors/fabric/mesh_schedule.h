// The partial mesh of the fabric probe at fleet scale: which peers a host
// probes in a rotation period, computed by every exporter alone from the
// same peer set (hosts and their groups, e.g. ToRs) and the period number,
// so that no coordinator is needed and every responder knows who will
// connect to it.
//
// Within its own group a host probes the next floor(m/2) members (a round
// trip measures both directions, so each pair of a group is probed once,
// by one of its ends), and `representatives` hosts of every other group
// per period, the other groups' share being spread over its own group's
// hosts: each period a group takes a window of m*c positions of its
// sequence, c = ceil(k*P/m), host r of the group every m-th position from
// r, and position q targets other group q mod P (P, the stride, is the
// least number at or above G-1 sharing no factor with a group's size, so
// that every host reaches every group; positions past G-1 are holes). So
// the group as a whole reaches every other group k times a period. A pair
// of hosts in two groups is also probed by one of its ends only: host i
// of group A takes the members j of group B with i + j + (A < B) even,
// one more of them at each visit, so every host pair is probed within
// ceil(m/2)*P/c periods. Two neighbouring source groups start at the same
// member pair, which spreads the hosts probing into a group evenly over
// its members. The peers probed are bounded by `max_peers` and, as every
// host is probed about as often as it probes, the connections both ways
// by `max_connections`; below max_peers every peer is probed every
// period.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rnic::fabric {

struct MeshMember {
  std::string host;   // as the peer set names it
  std::string group;  // "" is a group like any other (peers of no group)
  bool operator==(const MeshMember&) const = default;
};

struct MeshBounds {
  int max_peers = 64;       // peers probed per period; 0: no bound
  int representatives = 3;  // per other group and period, per group
  // Connections per host and rail both ways (probed and probing) in a
  // partial mesh; 0: no bound. The cross-group share shrinks to fit.
  int max_connections = 0;
};

class MeshSchedule {
 public:
  // `members`: the peer set with this host in it (any order; a host listed
  // twice keeps its first group).
  MeshSchedule(const std::vector<MeshMember>& members, MeshBounds bounds);

  // The hosts `host` probes in `period`, sorted; empty for a host not in
  // the set.
  [[nodiscard]] std::vector<std::string> Targets(const std::string& host,
                                                 std::uint64_t period) const;
  // The hosts whose Targets(period) hold `host`, sorted.
  [[nodiscard]] std::vector<std::string> Sources(const std::string& host,
                                                 std::uint64_t period) const;
  // The first `n` members of `host`'s group after it (the peers it probes
  // every period while its group fits the bounds), sorted: the pairs a
  // partial mesh keeps per-pair series for. Every peer of a full mesh.
  [[nodiscard]] std::vector<std::string> Detail(const std::string& host,
                                                int n) const;
  // Peers probed per period by a host of `host`'s group (own group, other
  // groups); {0, 0} for a host not in the set.
  [[nodiscard]] std::pair<int, int> Share(const std::string& host) const;
  // True when every host probes every other every period (the peer set is
  // within max_peers).
  [[nodiscard]] bool Full() const { return full_; }
  [[nodiscard]] std::size_t hosts() const { return index_.size(); }
  [[nodiscard]] std::size_t groups() const { return groups_.size(); }

 private:
  struct Group {
    std::string name;
    std::vector<std::string> members;  // sorted
    int own = 0;    // own-group peers probed per host and period
    int cross = 0;  // other-group peers probed per host and period
  };
  struct Where {
    std::size_t group = 0;
    std::size_t rank = 0;
  };
  [[nodiscard]] const Where* Find(const std::string& host) const;
  // Appends every other host (full mesh) and `host`'s own-group peers of
  // `period`: the window at offsets after its rank (targets) or, mirrored,
  // before it (sources). False when the mesh is full: nothing else to add.
  bool AppendNearPeers(const std::string& host, const Where& w,
                       std::uint64_t period, bool mirrored,
                       std::vector<std::string>* out) const;
  // The member of group `to` at cross position q of the host of rank
  // `rank` in group `from`.
  [[nodiscard]] std::size_t CrossMember(std::size_t from, std::size_t to,
                                        std::size_t rank,
                                        std::uint64_t q) const;

  std::vector<Group> groups_;  // ordered by a hash of the name
  std::vector<std::pair<std::string, Where>> index_;  // sorted by host
  std::uint64_t stride_ = 1;  // cross positions per lap of the other groups
  bool full_ = true;
};

// The rotation period `unix_ms` falls in.
[[nodiscard]] std::uint64_t MeshPeriod(std::int64_t unix_ms,
                                       std::int64_t rotation_ms);

}  // namespace rnic::fabric
