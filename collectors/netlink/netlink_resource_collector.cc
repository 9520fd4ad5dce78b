#include "collectors/netlink/netlink_resource_collector.h"

#include <spdlog/spdlog.h>

#include <iterator>
#include <string_view>

#include "collectors/netlink/netlink_families.h"
#include "collectors/netlink/resource_aggregator.h"

namespace rnic {
namespace nl {
namespace {

constexpr ResKind kKinds[] = {ResKind::kQp, ResKind::kCq, ResKind::kMr,
                              ResKind::kPd, ResKind::kCtx};
// The PartSwitch part of each kind's dump, in kKinds' order: named once, not
// built per device and scrape.
constexpr std::string_view kParts[] = {"res_qp", "res_cq", "res_mr", "res_pd",
                                       "res_ctx"};
static_assert(std::size(kParts) == std::size(kKinds));

// RES_GET's summary counts every kind; one it reports as empty needs no dump.
// Idle devices and VFs are most of a large host, and each dump costs the
// kernel a walk and a round trip.
bool SummarySaysEmpty(const ResSummary& dev, ResKind kind) {
  const std::string_view name = ResKindName(kind);
  for (const auto& [entry, curr] : dev.entries) {
    if (entry == name) return curr == 0;
  }
  return false;  // not summarized (older kernel): dump it
}

}  // namespace

NetlinkResourceCollector::NetlinkResourceCollector(TransportOpener opener,
                                                   Options options)
    : opener_(std::move(opener)),
      options_(std::move(options)),
      comms_(options_.procfs, options_.pod_labels, options_.slurm_labels) {}

Status NetlinkResourceCollector::Collect(const ScrapeContext& ctx,
                                         MetricSet& out) {
  if (!EnsureTransport(opener_, transport_, parts_)) return Status::Ok();
  comms_.Clear();
  RdmaNetlinkSource src(*transport_);
  auto summary = src.ResourceSummary();
  if (!summary.ok()) {
    parts_.log().Log(spdlog::level::warn, "summary", "resource summary failed",
                     summary.error());
    if (!IsPermission(summary.error().errno_value)) transport_.reset();
    return summary.error();
  }
  parts_.log().Clear("summary");

  Status fatal;
  ResourceAggregator agg;
  for (const auto& dev : *summary) {
    for (const auto& [name, curr] : dev.entries) {
      out.Add(families::kResourceObjects,
              labels_.Get({{"device", dev.dev_name}, {"resource", name}}),
              static_cast<double>(curr));
    }
    for (std::size_t k = 0; k < std::size(kKinds); ++k) {
      const ResKind kind = kKinds[k];
      const std::string_view part = kParts[k];
      if (ctx.Expired()) break;
      if (SummarySaysEmpty(dev, kind)) continue;
      if (!parts_.Enabled(part, dev.dev_index)) continue;
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
  agg.Emit(out, options_.max_comms, labels_);
  labels_.Sweep();
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
      IntOption("max-comms",
                "Most process command names exported per scrape (the ones "
                "holding the most objects); the rest are summed under "
                "comm=\"[other]\". 0 = no cap",
                20, 0, std::numeric_limits<std::int64_t>::max()),
      BoolOption("pod-labels",
                 "Group the per-process resource series by container and "
                 "Kubernetes pod too: pod_uid (joins kube_pod_info{uid}) and "
                 "container_id labels from the owning process's "
                 "/proc/<pid>/cgroup. max-comms then caps (comm, pod, "
                 "container) groups",
                 false),
      BoolOption("slurm-labels",
                 "Group the per-process resource series by Slurm job too: "
                 "slurm_job_id (joins NCCL Inspector's) from the process's "
                 "slurmstepd cgroup (v1 or v2). max-comms then caps (comm, "
                 "job) groups",
                 false),
  };
  namespace fam = nl::families;
  spec.families = {&fam::kResourceObjects, &fam::kResourceQps,
                   &fam::kCommQps,         &fam::kCommCqs,
                   &fam::kCommCqEntries,   &fam::kCommCqMaxEntries,
                   &fam::kCommMrs,         &fam::kCommMrPinnedBytes,
                   &fam::kCommPds,         &fam::kCommContexts};
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    nl::NetlinkResourceCollector::Options o;
    o.max_comms = static_cast<std::size_t>(args.Int("max-comms"));
    o.procfs = args.paths.procfs;
    o.pod_labels = args.Bool("pod-labels");
    o.slurm_labels = args.Bool("slurm-labels");
    return std::unique_ptr<Collector>(
        std::make_unique<nl::NetlinkResourceCollector>(nl::KernelOpener(), o));
  };
  return spec;
}

}  // namespace rnic
