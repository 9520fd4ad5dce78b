// netlink_stat: what `rdma link` and `rdma statistic` show, read over RDMA
// netlink in a few requests per port: port state, every driver hw counter
// (STAT_GET), the optional counters' state (STAT_GET_STATUS) and the
// counters bound to QPs, summed by process command name.
// Read-only: it never sends STAT_SET (it never turns counters on or off).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "collectors/collector.h"
#include "collectors/collector_spec.h"
#include "collectors/netlink/comm_resolver.h"
#include "collectors/netlink/part_switch.h"
#include "collectors/netlink/rdma_source.h"
#include "collectors/netlink/transport.h"
#include "collectors/netlink/wrap_tracker.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeNetlinkStatCollectorSpec();

namespace nl {

// Opens the transport; called at construction and again after a failure
// (ib_core may be loaded after the exporter started).
using TransportOpener =
    std::function<Result<std::shared_ptr<NetlinkTransport>>()>;

[[nodiscard]] TransportOpener LibnlOpener();

// Opens `transport` when it is not open. False when RDMA netlink is absent
// (ib_core not loaded): nothing to report, not a failure; logged once.
[[nodiscard]] bool EnsureTransport(const TransportOpener& opener,
                                   std::shared_ptr<NetlinkTransport>& transport,
                                   PartSwitch& parts);

class NetlinkStatCollector final : public Collector {
 public:
  struct Options {
    bool qp_counters = true;          // dump QP-bound counters
    bool qp_counters_by_pid = false;  // add a pid label (opt-in cardinality)
    std::string procfs = "/proc";
  };
  // What the first dumps showed (for SharedFacts).
  struct Probe {
    bool port_state = false;
    bool hw_counters = false;
  };

  NetlinkStatCollector(TransportOpener opener, Options options);
  [[nodiscard]] Probe ProbeKernel();
  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

 private:
  [[nodiscard]] Status OnError(std::string_view part, const PortInfo& port,
                               const Error& err);
  void CollectBound(RdmaNetlinkSource& src, const PortInfo& port,
                    MetricSet& out, Status* fatal);

  TransportOpener opener_;
  std::shared_ptr<NetlinkTransport> transport_;
  Options options_;
  PartSwitch parts_{"netlink_stat"};
  WrapTracker wraps_;
  CommResolver comms_;
};

}  // namespace nl
}  // namespace rnic
