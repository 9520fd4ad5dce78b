// netlink_resource: what `rdma resource` shows. Object counts per device
// (RES_GET) and, from streamed dumps, QPs by port/type/state and the CQs,
// MRs, PDs and contexts each process command name holds.
#pragma once

#include <memory>
#include <string>

#include "collectors/collector.h"
#include "collectors/collector_spec.h"
#include "collectors/metrics/label_cache.h"
#include "collectors/netlink/comm_resolver.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/netlink/part_switch.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeNetlinkResourceCollectorSpec();

namespace nl {

class NetlinkResourceCollector final : public Collector {
 public:
  struct Options {
    std::size_t max_comms = 20;  // 0 = no cap
    std::string procfs = "/proc";
    // Group by pod and container too (pod_uid, container_id labels).
    bool pod_labels = false;
    // Group by Slurm job too (slurm_job_id label).
    bool slurm_labels = false;
  };
  NetlinkResourceCollector(TransportOpener opener, Options options);
  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

 private:
  TransportOpener opener_;
  std::shared_ptr<NetlinkTransport> transport_;
  Options options_;
  PartSwitch parts_{"netlink_resource"};
  CommResolver comms_;
  // Label sets of the series, kept across scrapes (label_cache.h).
  LabelCache labels_;
};

}  // namespace nl
}  // namespace rnic
