// Binds the probe's own QPs to a dedicated RDMA counter and reads it back:
// RDMA netlink STAT_SET in manual mode (`rdma statistic qp bind`) and
// STAT_GET of that counter id. Needs CAP_NET_ADMIN and a driver that can
// allocate per-QP counters (mlx5 can; rxe answers ENOMEM). Deliberately
// minimal and independent of the netlink collectors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "collectors/common/result.h"

struct nl_sock;
struct nlmsghdr;

namespace rnic::probe {

class QpCounterClient {
 public:
  [[nodiscard]] static Result<std::unique_ptr<QpCounterClient>> Open();
  ~QpCounterClient();
  QpCounterClient(const QpCounterClient&) = delete;
  QpCounterClient& operator=(const QpCounterClient&) = delete;

  // Allocates a new counter for `qpn` and returns its id.
  [[nodiscard]] Result<std::uint32_t> BindNew(std::uint32_t dev_index,
                                              std::uint32_t port,
                                              std::uint32_t qpn);
  // Adds `qpn` to an existing counter.
  [[nodiscard]] Status BindTo(std::uint32_t dev_index, std::uint32_t port,
                              std::uint32_t qpn, std::uint32_t counter_id);
  // Current values of the counter (kernel counter name -> value).
  [[nodiscard]] Result<std::map<std::string, std::uint64_t>> Read(
      std::uint32_t dev_index, std::uint32_t port, std::uint32_t counter_id);

 private:
  explicit QpCounterClient(nl_sock* sk) : sk_(sk) {}
  nl_sock* sk_;
};

// Pulls STAT_COUNTER_ID and the hardware counters out of a STAT_SET /
// STAT_GET reply (top level or inside STAT_COUNTER/STAT_COUNTER_ENTRY).
struct CounterReply {
  std::uint32_t counter_id = 0;
  bool has_counter_id = false;
  std::map<std::string, std::uint64_t> values;
};
[[nodiscard]] Result<CounterReply> ParseCounterReply(nlmsghdr* nlh);

// Makes per-rebind counter values monotonic: a new counter starts at 0, so
// the last values of the old one are folded into a base.
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
