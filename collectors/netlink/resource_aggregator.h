// Aggregates streamed resource dumps as they arrive (a host can hold 100k
// QPs; nothing per object is kept): QPs by port, type and state; CQs, MRs,
// PDs and contexts by owner command name. Turns the result into metrics
// with at most N command names per scrape plus "[other]".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collectors/metrics/label_cache.h"
#include "collectors/metrics/metric_set.h"
#include "collectors/netlink/comm_resolver.h"
#include "collectors/nl/rdma_source.h"

namespace rnic::nl {

inline constexpr const char* kOtherComm = "[other]";

struct OwnerTotals {
  std::uint64_t qps = 0;
  std::uint64_t cqs = 0;
  std::uint64_t cq_entries = 0;
  std::uint64_t cq_max_entries = 0;
  std::uint64_t mrs = 0;
  std::uint64_t mr_bytes = 0;
  std::uint64_t pds = 0;
  std::uint64_t ctxs = 0;

  void Merge(const OwnerTotals& o);
  [[nodiscard]] std::uint64_t Objects() const {
    return qps + cqs + mrs + pds + ctxs;
  }
};

// One device's dump of one kind, committed only when the dump completed
// (a dump cut short must not publish partial counts).
class DumpAggregate {
 public:
  explicit DumpAggregate(CommResolver& comms) : comms_(comms) {}
  void Add(const ResEntry& e);

  // (port, qp type, qp state) -> QPs
  std::map<std::tuple<std::uint32_t, int, int>, std::uint64_t> qps;
  std::unordered_map<std::string, OwnerTotals> owners;

 private:
  CommResolver& comms_;
};

class ResourceAggregator {
 public:
  // Adds a completed dump of device `dev`.
  void Commit(const std::string& dev, DumpAggregate&& dump);
  // Emits the families; keeps the `max_comms` command names with the most
  // objects over all devices (0 = no cap), folds the rest into "[other]".
  // Label sets come from `labels`, which the collector keeps across scrapes.
  void Emit(MetricSet& out, std::size_t max_comms, LabelCache& labels) const;

 private:
  struct Device {
    std::map<std::tuple<std::uint32_t, int, int>, std::uint64_t> qps;
    std::map<std::string, OwnerTotals> owners;
  };
  std::map<std::string, Device> devices_;
};

}  // namespace rnic::nl
