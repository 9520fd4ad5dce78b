#include "collectors/netlink/netlink_resource_collector.h"

#include <spdlog/spdlog.h>

#include <charconv>

#include "collectors/netlink/resource_aggregator.h"

namespace rnic {
namespace nl {
namespace {

constexpr const char* kObjectsHelp =
    "Objects of a kind on the device (RDMA_NLDEV_CMD_RES_GET summary, as "
    "`rdma resource show`; only objects visible in the exporter's PID "
    "namespace)";

constexpr ResKind kKinds[] = {ResKind::kQp, ResKind::kCq, ResKind::kMr,
                              ResKind::kPd, ResKind::kCtx};

}  // namespace

NetlinkResourceCollector::NetlinkResourceCollector(TransportOpener opener,
                                                   Options options)
    : opener_(std::move(opener)),
      options_(std::move(options)),
      comms_(options_.procfs) {}

Status NetlinkResourceCollector::Collect(const ScrapeContext& ctx,
                                         MetricSet& out) {
  if (!EnsureTransport(opener_, transport_, parts_)) return Status::Ok();
  comms_.Clear();
  RdmaNetlinkSource src(*transport_);
  auto summary = src.ResourceSummary();
  if (!summary.ok()) {
    parts_.WarnOnce("summary",
                    "resource summary failed: " + summary.error().ToString());
    if (!IsPermission(summary.error().errno_value)) transport_.reset();
    return summary.error();
  }
  parts_.Clear("summary");

  Status fatal;
  ResourceAggregator agg;
  for (const auto& dev : *summary) {
    for (const auto& [name, curr] : dev.entries) {
      out.AddGauge("rnic_resource_objects", kObjectsHelp,
                   {{"device", dev.dev_name}, {"resource", name}},
                   static_cast<double>(curr));
    }
    for (ResKind kind : kKinds) {
      if (ctx.Expired()) break;
      const std::string part = std::string("res_") + ResKindName(kind);
      if (!parts_.Enabled(PartKey(part, dev.dev_name))) continue;
      DumpAggregate dump(comms_);
      Status st = src.DumpResources(kind, dev.dev_index,
                                    [&](const ResEntry& e) { dump.Add(e); });
      if (st.ok()) {
        agg.Commit(dev.dev_name, std::move(dump));
      } else if (Status h =
                     HandlePartError(parts_, *transport_, part, dev.dev_index,
                                     dev.dev_name, st.error());
                 !h.ok()) {
        fatal = h;
      }
    }
  }
  agg.Emit(out, options_.max_comms);
  return fatal;
}

}  // namespace nl

CollectorSpec MakeNetlinkResourceCollectorSpec() {
  CollectorSpec spec;
  spec.name = "netlink_resource";
  spec.help =
      "RDMA objects (QPs, CQs, MRs, PDs, contexts) per device and per "
      "process command name over RDMA netlink (what `rdma resource` shows)";
  spec.default_enabled = true;
  spec.options = {
      {"max-comms",
       "Most process command names exported per scrape (the ones holding the "
       "most objects); the rest are summed under comm=\"[other]\". 0 = no cap",
       "20"},
  };
  const std::string by_comm = "device,comm";
  spec.metrics = {
      {"rnic_resource_objects", "gauge", "device,resource", nl::kObjectsHelp},
      {"rnic_resource_qps", "gauge", "device,port,qp_type,state",
       "QPs by port, type and state (RDMA_NLDEV_CMD_RES_QP_GET; port \"0\": "
       "not bound to a port yet)"},
      {"rnic_resource_comm_qps", "gauge", by_comm, "QPs held by a process"},
      {"rnic_resource_cqs", "gauge", by_comm, "CQs held by a process"},
      {"rnic_resource_cq_entries", "gauge", by_comm,
       "Total depth (CQEs) of the CQs a process holds"},
      {"rnic_resource_cq_max_entries", "gauge", by_comm,
       "Depth (CQEs) of the largest CQ a process holds"},
      {"rnic_resource_mrs", "gauge", by_comm, "MRs registered by a process"},
      {"rnic_resource_mr_pinned_bytes", "gauge", by_comm,
       "Bytes registered in a process's MRs (sum of mrlen)"},
      {"rnic_resource_pds", "gauge", by_comm,
       "Protection domains held by a process"},
      {"rnic_resource_contexts", "gauge", by_comm,
       "Verbs contexts (open devices) held by a process"},
  };
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    nl::NetlinkResourceCollector::Options o;
    const std::string& s = args.Option("max-comms");
    std::size_t n = 20;
    if (!s.empty()) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (ec != std::errc() || p != s.data() + s.size()) {
        return Error{
            "--collector.netlink_resource.max-comms: not a number: " + s,
            EINVAL};
      }
    }
    o.max_comms = n;
    o.procfs = args.paths.procfs;
    return std::unique_ptr<Collector>(
        std::make_unique<nl::NetlinkResourceCollector>(nl::LibnlOpener(), o));
  };
  return spec;
}

}  // namespace rnic
