#include "collectors/netlink/resource_aggregator.h"

#include <algorithm>
#include <set>

#include "collectors/netlink/netlink_families.h"
#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl {

void OwnerTotals::Merge(const OwnerTotals& o) {
  qps += o.qps;
  cqs += o.cqs;
  cq_entries += o.cq_entries;
  cq_max_entries = std::max(cq_max_entries, o.cq_max_entries);
  mrs += o.mrs;
  mr_bytes += o.mr_bytes;
  pds += o.pds;
  ctxs += o.ctxs;
}

void DumpAggregate::Add(const ResEntry& e) {
  if (e.kind == ResKind::kQp) {
    ++qps[{e.port, e.qp_type ? int{*e.qp_type} : -1,
           e.qp_state ? int{*e.qp_state} : -1}];
  }
  OwnerTotals& o = owners[comms_.Group(e.owner)];
  switch (e.kind) {
    case ResKind::kQp:
      ++o.qps;
      break;
    case ResKind::kCq: {
      ++o.cqs;
      const std::uint64_t cqe = e.cqe.value_or(0);
      o.cq_entries += cqe;
      o.cq_max_entries = std::max(o.cq_max_entries, cqe);
      break;
    }
    case ResKind::kMr:
      ++o.mrs;
      o.mr_bytes += e.mrlen.value_or(0);
      break;
    case ResKind::kPd:
      ++o.pds;
      break;
    case ResKind::kCtx:
      ++o.ctxs;
      break;
  }
}

void ResourceAggregator::Commit(const std::string& dev, DumpAggregate&& dump) {
  Device& d = devices_[dev];
  for (const auto& [k, n] : dump.qps) d.qps[k] += n;
  for (auto& [comm, t] : dump.owners) d.owners[comm].Merge(t);
}

namespace {

std::string Name(const char* known, int value) {
  if (value < 0) return "unknown";
  return known != nullptr ? known : std::to_string(value);
}

}  // namespace

void ResourceAggregator::Emit(MetricSet& out, std::size_t max_comms,
                              LabelCache& labels) const {
  // Rank command names by objects held over all devices.
  std::map<std::string, std::uint64_t> weight;
  for (const auto& [dev, d] : devices_) {
    for (const auto& [comm, t] : d.owners) weight[comm] += t.Objects();
  }
  std::set<std::string> keep;
  if (max_comms == 0 || weight.size() <= max_comms) {
    for (const auto& [comm, w] : weight) keep.insert(comm);
  } else {
    std::vector<std::pair<std::uint64_t, std::string>> ranked;
    ranked.reserve(weight.size());
    for (const auto& [comm, w] : weight) ranked.emplace_back(w, comm);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (std::size_t i = 0; i < max_comms; ++i) keep.insert(ranked[i].second);
  }

  for (const auto& [dev, d] : devices_) {
    for (const auto& [key, n] : d.qps) {
      const auto& [port, type, state] = key;
      const std::string port_text = std::to_string(port);
      const std::string type_name =
          Name(type >= 0 ? QpTypeName(type) : nullptr, type);
      const std::string state_name =
          Name(state >= 0 ? QpStateName(state) : nullptr, state);
      out.Add(families::kResourceQps,
              labels.Get({{"device", dev},
                          {"port", port_text},
                          {"qp_type", type_name},
                          {"state", state_name}}),
              static_cast<double>(n));
    }
    std::map<std::string, OwnerTotals> folded;
    for (const auto& [comm, t] : d.owners) {
      folded[keep.contains(comm) ? comm : std::string(kOtherComm)].Merge(t);
    }
    for (const auto& [comm, t] : folded) {
      // A group in a container or Slurm job (attribution on) also names
      // its pod and container, job; host processes and "[other]" carry the
      // comm alone.
      const GroupLabels g = SplitGroupKey(comm);
      LabelPair pairs[5] = {{"device", dev}, {"comm", g.comm}};
      std::size_t n = 2;
      if (!g.container.pod_uid.empty()) {
        pairs[n++] = {"pod_uid", g.container.pod_uid};
      }
      if (!g.container.container_id.empty()) {
        pairs[n++] = {"container_id", g.container.container_id};
      }
      if (!g.container.slurm_job_id.empty()) {
        pairs[n++] = {"slurm_job_id", g.container.slurm_job_id};
      }
      const LabelSetPtr& l = labels.Get(std::span<const LabelPair>(pairs, n));
      out.Add(families::kCommQps, l, static_cast<double>(t.qps));
      out.Add(families::kCommCqs, l, static_cast<double>(t.cqs));
      out.Add(families::kCommCqEntries, l, static_cast<double>(t.cq_entries));
      out.Add(families::kCommCqMaxEntries, l,
              static_cast<double>(t.cq_max_entries));
      out.Add(families::kCommMrs, l, static_cast<double>(t.mrs));
      out.Add(families::kCommMrPinnedBytes, l, static_cast<double>(t.mr_bytes));
      out.Add(families::kCommPds, l, static_cast<double>(t.pds));
      out.Add(families::kCommContexts, l, static_cast<double>(t.ctxs));
    }
  }
}

}  // namespace rnic::nl
