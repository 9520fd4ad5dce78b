#include "collectors/probe/qp_counter.h"

namespace rnic::probe {

Result<std::uint32_t> BindProbeQps(nl::RdmaNetlinkSource& src,
                                   std::uint32_t dev_index, std::uint32_t port,
                                   std::uint32_t qpn_a, std::uint32_t qpn_b) {
  auto id = src.BindQpToCounter(dev_index, port, qpn_a, std::nullopt);
  if (!id) return id.error();
  auto second = src.BindQpToCounter(dev_index, port, qpn_b, *id);
  if (!second) return second.error();
  return *id;
}

Result<std::map<std::string, std::uint64_t>> ReadQpCounter(
    nl::RdmaNetlinkSource& src, std::uint32_t dev_index, std::uint32_t port,
    std::uint32_t counter_id) {
  auto hw = src.CounterValues(dev_index, port, counter_id);
  if (!hw) return hw.error();
  std::map<std::string, std::uint64_t> out;
  for (auto& c : *hw) out[std::move(c.name)] = c.value;
  return out;
}

void MonotonicCounters::Rebound() {
  for (const auto& [k, v] : last_) base_[k] += v;
  last_.clear();
}

void MonotonicCounters::Update(
    const std::map<std::string, std::uint64_t>& current) {
  for (const auto& [k, v] : current) {
    auto it = last_.find(k);
    // A value going down without a rebind: the counter was reset under us.
    if (it != last_.end() && v < it->second) base_[k] += it->second;
    last_[k] = v;
  }
}

std::map<std::string, std::uint64_t> MonotonicCounters::Values() const {
  std::map<std::string, std::uint64_t> out = base_;
  for (const auto& [k, v] : last_) out[k] += v;
  return out;
}

}  // namespace rnic::probe
