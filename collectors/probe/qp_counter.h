// Binds the probe's own QPs to a dedicated RDMA counter and reads it back
// (`rdma statistic qp bind` in manual mode, then STAT_GET of that counter),
// through the project's RDMA netlink source, so the requests and their
// parsing are the ones the netlink collectors use and replay tests cover.
// Needs CAP_NET_ADMIN and a driver that can allocate per-QP counters (mlx5
// can; rxe answers ENOMEM).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "collectors/common/result.h"
#include "collectors/nl/rdma_source.h"

namespace rnic::probe {

// Binds `qpn_a` to a new counter and `qpn_b` to that same counter; returns
// the counter id. A kernel refusal comes back with its errno.
[[nodiscard]] Result<std::uint32_t> BindProbeQps(nl::RdmaNetlinkSource& src,
                                                 std::uint32_t dev_index,
                                                 std::uint32_t port,
                                                 std::uint32_t qpn_a,
                                                 std::uint32_t qpn_b);

// Current values of counter `counter_id` (kernel counter name -> value).
[[nodiscard]] Result<std::map<std::string, std::uint64_t>> ReadQpCounter(
    nl::RdmaNetlinkSource& src, std::uint32_t dev_index, std::uint32_t port,
    std::uint32_t counter_id);

// Makes per-rebind counter values monotonic: a new counter starts at 0, so
// the last values of the old one are folded into a base. Not the wrap
// extension of collectors/common/counter_tracker: that one passes a reset
// through (rate() must see it), this one hides the resets the probe itself
// causes by moving its QPs to a fresh counter.
class MonotonicCounters {
 public:
  void Rebound();  // call when the QPs move to a new counter
  void Update(const std::map<std::string, std::uint64_t>& current);
  [[nodiscard]] std::map<std::string, std::uint64_t> Values() const;

 private:
  std::map<std::string, std::uint64_t> base_;
  std::map<std::string, std::uint64_t> last_;
};

}  // namespace rnic::probe
