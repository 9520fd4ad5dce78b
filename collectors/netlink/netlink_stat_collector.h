// netlink_stat: what `rdma link` and `rdma statistic` show, read over RDMA
// netlink in a few requests per port: port state, every driver hw counter
// (STAT_GET), the optional counters' state (STAT_GET_STATUS) and the
// counters bound to QPs, summed by process command name.
// Read-only: it never sends STAT_SET (it never turns counters on or off).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "collectors/collector.h"
#include "collectors/collector_spec.h"
#include "collectors/common/counter_tracker.h"
#include "collectors/host/host_model.h"
#include "collectors/host/model_view.h"
#include "collectors/metrics/hw_counters.h"
#include "collectors/netlink/comm_resolver.h"
#include "collectors/netlink/part_switch.h"
#include "collectors/nl/rdma_source.h"
#include "collectors/nl/transport.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeNetlinkStatCollectorSpec();

namespace nl {

// Opens the transport; called at construction and again after a failure
// (ib_core may be loaded after the exporter started).
using TransportOpener =
    std::function<Result<std::shared_ptr<NetlinkTransport>>()>;

[[nodiscard]] TransportOpener KernelOpener();

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
    // Add pod_uid and container_id labels (the owner's cgroup).
    bool qp_counters_pod_labels = false;
    // Add a slurm_job_id label (the owner's slurmstepd cgroup).
    bool qp_counters_slurm_labels = false;
    std::string procfs = "/proc";
  };
  // What the first dumps showed (for SharedFacts).
  struct Probe {
    bool port_state = false;
    bool hw_counters = false;
  };

  // Without `model` the collector keeps one of its own, described by RDMA
  // netlink alone (tests replaying captures).
  NetlinkStatCollector(TransportOpener opener, Options options,
                       std::shared_ptr<host::HostModel> model = nullptr);
  [[nodiscard]] Probe ProbeKernel();
  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

 private:
  // One driver counter of one port, worked out when it first appears.
  struct CounterMeta {
    std::string name;
    HwCounterMeta hw;
    WrapState wrap;
  };
  // A port as this collector last saw it: its labels and counters, kept
  // while the device registration lasts, so a scrape only reads values.
  struct PortCache {
    std::uint64_t instance = 0;  // host::Device::instance
    std::uint32_t port = 0;
    LabelSetPtr labels;
    std::vector<CounterMeta> counters;  // in the kernel's order
    std::size_t next = 0;               // position during one reply
    // STAT_GET_STATUS, asked again only when the STAT_GET answer changed
    // shape: turning an optional counter on or off adds or removes it from
    // STAT_GET, so the answer's counter names tell when the status moved.
    std::vector<LabelSetPtr> optional;  // device, port, counter, enabled
    bool optional_valid = false;
    std::size_t last_reply_size = 0;
    // Counters bound to QPs exist only after an operator turned on auto
    // mode or bound them by hand: a port whose dump came back empty is
    // dumped again after kBoundRecheck, one that has them at every scrape.
    std::chrono::steady_clock::time_point bound_next{};
  };
  static constexpr std::chrono::seconds kBoundRecheck{30};

  [[nodiscard]] Status OnError(std::string_view part, const host::Device& dev,
                               const Error& err);
  PortCache& CacheFor(const host::Device& dev, std::uint32_t port);
  // The model of a collector built alone: RDMA netlink's device list, asked
  // over this collector's transport (that model is refreshed only inside
  // Collect(), on this thread, so the two never use the socket at once).
  host::HostModel::Options OwnModelOptions();
  // Index of `name` in pc.counters, adding it when new.
  std::size_t CounterIndex(PortCache& pc, std::string_view name);
  void EmitCounter(PortCache& pc, CounterMeta& cm, std::uint64_t value,
                   MetricSet& out);
  void CollectBound(RdmaNetlinkSource& src, const host::Device& dev,
                    PortCache& pc, MetricSet& out, Status* fatal);

  TransportOpener opener_;
  std::shared_ptr<NetlinkTransport> transport_;
  Options options_;
  host::ModelView model_;
  PartSwitch parts_{"netlink_stat"};
  CommResolver comms_;
  // Keyed by device name; entries of devices gone from the model are
  // dropped at the end of each scrape.
  std::map<std::string, std::vector<PortCache>, std::less<>> ports_;
  // One scrape's ports, as PORT_GET answered them. Reused, like the
  // vectors below.
  struct FoundPort {
    const host::Device* dev = nullptr;
    std::uint32_t port = 0;
    PortCache* pc = nullptr;
  };
  std::vector<RdmaNetlinkSource::DevPorts> batch_devs_;
  std::vector<const host::Device*> devs_;
  std::vector<FoundPort> found_;
  // The STAT_GET batch: ports asked, their outcomes, and the counters of
  // every reply (stat_refs_ position, counter index, value), emitted only
  // for a reply that parsed whole.
  struct PendingCounter {
    std::size_t port = 0;
    std::size_t counter = 0;
    std::uint64_t value = 0;
  };
  std::vector<RdmaNetlinkSource::PortRef> stat_refs_;
  std::vector<const FoundPort*> stat_ports_;
  std::vector<Status> stat_results_;
  std::vector<PendingCounter> pending_;
  std::vector<std::size_t> reply_sizes_;
};

}  // namespace nl
}  // namespace rnic
