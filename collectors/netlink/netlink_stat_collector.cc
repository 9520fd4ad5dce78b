#include "collectors/netlink/netlink_stat_collector.h"

#include <spdlog/spdlog.h>

#include <map>
#include <utility>

#include "collectors/metrics/hw_counters.h"
#include "collectors/metrics/port_families.h"
#include "collectors/netlink/netlink_families.h"
#include "collectors/nl/device_lister.h"
#include "collectors/nl/kernel_transport.h"
#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic {
namespace nl {
namespace {

std::string QpCounterFamily(std::string_view counter) {
  return "rnic_qp_counter_" + MetricNamePart(counter) + "_total";
}

}  // namespace

TransportOpener KernelOpener() {
  return []() -> Result<std::shared_ptr<NetlinkTransport>> {
    auto t = KernelTransport::Open();
    if (!t.ok()) return t.error();
    return std::shared_ptr<NetlinkTransport>(std::move(t).value());
  };
}

NetlinkStatCollector::NetlinkStatCollector(
    TransportOpener opener, Options options,
    std::shared_ptr<host::HostModel> model)
    : opener_(std::move(opener)),
      options_(std::move(options)),
      model_(std::move(model), OwnModelOptions()),
      comms_(options_.procfs, options_.qp_counters_pod_labels,
             options_.qp_counters_slurm_labels) {}

host::HostModel::Options NetlinkStatCollector::OwnModelOptions() {
  // No sysfs tree: the model is what RDMA netlink reports, through this
  // collector's own transport.
  host::HostModel::Options o;
  o.sysfs = "/nonexistent";
  o.netlink =
      MakeDeviceLister([this]() -> Result<std::shared_ptr<NetlinkTransport>> {
        if (!transport_) return Error{"no transport", ENODEV};
        return transport_;
      });
  return o;
}

NetlinkStatCollector::Probe NetlinkStatCollector::ProbeKernel() {
  Probe p;
  if (!transport_) {
    auto t = opener_();
    if (!t.ok()) return p;
    transport_ = std::move(t).value();
  }
  RdmaNetlinkSource src(*transport_);
  auto devs = src.Devices();
  if (!devs.ok()) return p;
  bool any_port = false;
  for (const auto& d : *devs) {
    auto ports = src.Ports(d.index, d.num_ports);
    if (!ports.ok()) continue;
    p.port_state = true;
    for (const auto& port : *ports) {
      any_port = true;
      if (src.PortStats(d.index, port.port).ok()) {
        p.hw_counters = true;
        break;
      }
    }
    if (p.hw_counters) break;
  }
  if (devs->empty()) p.port_state = true;
  // No port to try: netlink can do whatever sysfs could for ports that
  // appear later.
  if (!any_port) p.hw_counters = p.port_state;
  return p;
}

Status NetlinkStatCollector::OnError(std::string_view part,
                                     const host::Device& dev,
                                     const Error& err) {
  // A device that vanished, or answers for another index: look again.
  if (IsVanished(err.errno_value) || err.errno_value == EINVAL) {
    model_.model().Invalidate(dev.name);
  }
  return HandlePartError(parts_, *transport_, part, dev.index, dev.name, err);
}

NetlinkStatCollector::PortCache& NetlinkStatCollector::CacheFor(
    const host::Device& dev, std::uint32_t port) {
  auto it = ports_.find(dev.name);
  if (it == ports_.end())
    it = ports_.emplace(dev.name, std::vector<PortCache>{}).first;
  auto& v = it->second;
  for (PortCache& pc : v) {
    if (pc.port == port && pc.instance == dev.instance) return pc;
  }
  // New port or a new registration of the device: wrap state starts over.
  std::erase_if(v, [&](const PortCache& pc) {
    return pc.port == port || pc.instance != dev.instance;
  });
  PortCache pc;
  pc.instance = dev.instance;
  pc.port = port;
  if (const host::Port* mp = dev.FindPort(port); mp && mp->labels) {
    pc.labels = mp->labels;
  } else {
    pc.labels =
        LabelSet::Make({{"device", dev.name}, {"port", std::to_string(port)}});
  }
  v.push_back(std::move(pc));
  return v.back();
}

std::size_t NetlinkStatCollector::CounterIndex(PortCache& pc,
                                               std::string_view name) {
  // The kernel lists a port's counters in the same order every time: the
  // next cached entry is nearly always the one.
  std::size_t i = pc.next;
  if (i >= pc.counters.size() || pc.counters[i].name != name) {
    pc.optional_valid = false;  // the answer changed shape
    i = 0;
    while (i < pc.counters.size() && pc.counters[i].name != name) ++i;
    if (i == pc.counters.size()) {
      pc.counters.push_back(
          CounterMeta{std::string(name), HwCounterFor(name), {}});
    }
  }
  pc.next = i + 1;
  return i;
}

void NetlinkStatCollector::EmitCounter(PortCache& pc, CounterMeta& cm,
                                       std::uint64_t value, MetricSet& out) {
  if (cm.hw.gauge) {
    // A level some drivers list among counters (bnxt_re active_qps).
    out.Add(*cm.hw.family, pc.labels, static_cast<double>(value));
    return;
  }
  const std::uint64_t v = cm.hw.width < 64
                              ? ExtendCounter(cm.wrap, value, cm.hw.width).value
                              : value;
  out.Add(*cm.hw.family, pc.labels, static_cast<double>(v));
}

bool EnsureTransport(const TransportOpener& opener,
                     std::shared_ptr<NetlinkTransport>& transport,
                     PartSwitch& parts) {
  if (transport) return true;
  auto t = opener();
  if (!t.ok()) {
    parts.log().Log(spdlog::level::warn, "open", "no RDMA netlink", t.error());
    return false;
  }
  transport = std::move(t).value();
  parts.log().Clear("open");
  return true;
}

Status NetlinkStatCollector::Collect(const ScrapeContext& ctx, MetricSet& out) {
  if (!EnsureTransport(opener_, transport_, parts_)) return Status::Ok();
  comms_.Clear();
  RdmaNetlinkSource src(*transport_);
  const auto snap = model_.Get();

  Status fatal;
  // For the 30 s re-check of QP-bound counters: a tick's precision will do.
  const auto now = CoarseNow();
  // Every port's state: PORT_GET of every device netlink knows, asked
  // together (one datagram for the one-port devices' doits).
  batch_devs_.clear();
  devs_.clear();
  for (const auto& devp : snap->devices) {
    if (!devp->has_index) continue;  // netlink does not know it (yet)
    batch_devs_.push_back({devp->index, devp->netlink_ports});
    devs_.push_back(devp.get());
  }
  found_.clear();
  src.PortsBatch(batch_devs_, [&](std::size_t i, const Status& st,
                                  const std::vector<PortInfo>& ports) {
    const host::Device& dev = *devs_[i];
    if (!st.ok()) {
      if (Status h = OnError("ports", dev, st.error()); !h.ok()) fatal = h;
      return;
    }
    for (const PortInfo& port : ports) {
      PortCache& pc = CacheFor(dev, port.port);
      if (port.state) {
        out.Add(rnic::families::kPortState, pc.labels, *port.state);
      }
      if (port.phys_state) {
        out.Add(rnic::families::kPortPhysicalState, pc.labels,
                *port.phys_state);
      }
      found_.push_back({&dev, port.port});
    }
  });
  // Port caches are all made: pointers to them hold for the rest.
  for (FoundPort& f : found_) f.pc = &CacheFor(*f.dev, f.port);

  // Every port's counters: STAT_GET, asked together. A reply is emitted
  // only when it parsed whole: a garbled answer exports nothing of its port.
  if (!ctx.Expired()) {
    stat_refs_.clear();
    stat_ports_.clear();
    for (const FoundPort& f : found_) {
      if (!parts_.Enabled("stat", f.dev->index)) continue;
      stat_refs_.push_back({f.dev->index, f.port});
      stat_ports_.push_back(&f);
      f.pc->next = 0;
    }
    pending_.clear();
    src.PortStatsBatch(
        stat_refs_,
        [&](std::size_t i, std::string_view name, std::uint64_t v) {
          pending_.push_back({i, CounterIndex(*stat_ports_[i]->pc, name), v});
        },
        stat_results_);
    reply_sizes_.assign(stat_refs_.size(), 0);
    for (const PendingCounter& p : pending_) ++reply_sizes_[p.port];
    for (std::size_t i = 0; i < stat_refs_.size(); ++i) {
      PortCache& pc = *stat_ports_[i]->pc;
      if (!stat_results_[i].ok()) {
        if (Status h =
                OnError("stat", *stat_ports_[i]->dev, stat_results_[i].error());
            !h.ok()) {
          fatal = h;
        }
      } else if (reply_sizes_[i] != pc.last_reply_size) {
        pc.optional_valid = false;
        pc.last_reply_size = reply_sizes_[i];
      }
    }
    for (const PendingCounter& p : pending_) {
      if (!stat_results_[p.port].ok()) continue;
      PortCache& pc = *stat_ports_[p.port]->pc;
      EmitCounter(pc, pc.counters[p.counter], p.value, out);
    }
  }

  for (const FoundPort& f : found_) {
    if (ctx.Expired()) break;
    const host::Device& dev = *f.dev;
    PortCache& pc = *f.pc;
    if (parts_.Enabled("status", dev.index) && !pc.optional_valid) {
      auto status = src.CounterStatus(dev.index, f.port);
      if (status.ok()) {
        pc.optional.clear();
        for (const auto& oc : *status) {
          pc.optional.push_back(pc.labels->With(
              {{"counter", oc.name}, {"enabled", oc.enabled ? "1" : "0"}}));
        }
        pc.optional_valid = true;
      } else if (Status st = OnError("status", dev, status.error()); !st.ok()) {
        fatal = st;
      }
    }
    if (pc.optional_valid) {
      for (const LabelSetPtr& l : pc.optional) {
        out.Add(families::kOptionalCounterInfo, l, 1);
      }
    }

    if (options_.qp_counters && parts_.Enabled("qp_counters", dev.index) &&
        now >= pc.bound_next) {
      CollectBound(src, dev, pc, out, &fatal);
    }
  }
  // Devices gone from the model leave no state behind.
  std::erase_if(ports_, [&](const auto& kv) {
    const host::Device* d = snap->Find(kv.first);
    return d == nullptr;
  });
  return fatal;
}

void NetlinkStatCollector::CollectBound(RdmaNetlinkSource& src,
                                        const host::Device& dev, PortCache& pc,
                                        MetricSet& out, Status* fatal) {
  struct Agg {
    std::string comm;
    std::string pid;
    std::uint64_t qps = 0;
    std::map<std::string, std::uint64_t> sums;
  };
  std::map<std::pair<std::string, std::string>, Agg> by_owner;
  Status st =
      src.BoundCounters(dev.index, pc.port, [&](const BoundCounter& bc) {
        // The comm, and with pod or Slurm labels on its pod and container,
        // job too.
        const std::string& comm = comms_.Group(bc.owner);
        std::string pid;
        if (options_.qp_counters_by_pid && bc.owner.pid) {
          // The process, like comm: the kernel's id is the creating thread.
          pid = std::to_string(comms_.ProcessOf(*bc.owner.pid));
        }
        Agg& a = by_owner[{comm, pid}];
        a.comm = comm;
        a.pid = pid;
        a.qps += bc.num_qps;
        for (const auto& c : bc.counters) a.sums[c.name] += c.value;
      });
  if (!st.ok()) {
    if (Status h = OnError("qp_counters", dev, st.error()); !h.ok()) {
      *fatal = h;
    }
    return;
  }
  pc.bound_next = by_owner.empty() ? CoarseNow() + kBoundRecheck
                                   : std::chrono::steady_clock::time_point{};
  for (const auto& [key, a] : by_owner) {
    const GroupLabels g = SplitGroupKey(a.comm);
    LabelSetPtr labels =
        options_.qp_counters_by_pid
            ? pc.labels->With({{"comm", g.comm}, {"pid", a.pid}})
            : pc.labels->With({{"comm", g.comm}});
    if (!g.container.pod_uid.empty()) {
      labels = labels->With({{"pod_uid", g.container.pod_uid}});
    }
    if (!g.container.container_id.empty()) {
      labels = labels->With({{"container_id", g.container.container_id}});
    }
    if (!g.container.slurm_job_id.empty()) {
      labels = labels->With({{"slurm_job_id", g.container.slurm_job_id}});
    }
    out.Add(families::kBoundQps, labels, static_cast<double>(a.qps));
    for (const auto& [name, sum] : a.sums) {
      // Interned once per counter name (kQpCounter documents them).
      const FamilyDesc& f = InternFamily(
          QpCounterFamily(name), prometheus::MetricType::Counter,
          families::kQpCounter.labels,
          "Sum of " + name +
              " over the counters bound to this process's QPs. Already "
              "included in " +
              HwCounterFamilyName(name) + "; resets when the QPs go away");
      out.Add(f, labels, static_cast<double>(sum));
    }
  }
}

}  // namespace nl

CollectorSpec MakeNetlinkStatCollectorSpec() {
  CollectorSpec spec;
  spec.name = "netlink_stat";
  spec.help =
      "Port state, driver hw counters, optional counters and QP-bound "
      "counters over RDMA netlink (what `rdma statistic` shows)";
  spec.default_enabled = true;
  spec.options = {
      BoolOption("qp-counters",
                 "Dump counters bound to QPs (only present when the operator "
                 "enabled `rdma statistic qp set ... auto` or bound counters "
                 "manually). A port without any is dumped again every 30 s, "
                 "one with some at every scrape",
                 true),
      BoolOption(
          "qp-counters-by-pid",
          "Add a pid label to the QP-bound counter series (higher cardinality)",
          false),
      BoolOption("qp-counters-pod-labels",
                 "Add pod_uid (joins kube_pod_info{uid}) and container_id "
                 "labels to the QP-bound counter series of processes in a "
                 "container, from /proc/<pid>/cgroup",
                 false),
      BoolOption("qp-counters-slurm-labels",
                 "Add slurm_job_id (joins NCCL Inspector's) to the QP-bound "
                 "counter series of processes in a Slurm job's cgroup",
                 false),
  };
  spec.families = {&rnic::families::kPortState,
                   &rnic::families::kPortPhysicalState,
                   &rnic::families::kHwCounter,
                   &rnic::families::kHwGauge,
                   &nl::families::kOptionalCounterInfo,
                   &nl::families::kBoundQps,
                   &nl::families::kQpCounter};
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    nl::NetlinkStatCollector::Options o;
    o.qp_counters = args.Bool("qp-counters");
    o.qp_counters_by_pid = args.Bool("qp-counters-by-pid");
    o.qp_counters_pod_labels = args.Bool("qp-counters-pod-labels");
    o.qp_counters_slurm_labels = args.Bool("qp-counters-slurm-labels");
    o.procfs = args.paths.procfs;
    auto c = std::make_unique<nl::NetlinkStatCollector>(
        nl::KernelOpener(), o, args.shared ? args.shared->host : nullptr);
    const auto probe = c->ProbeKernel();
    if (args.shared) {
      args.shared->netlink_port_state = probe.port_state;
      args.shared->netlink_hw_counters = probe.hw_counters;
    }
    LogEvent(spdlog::level::debug, "netlink_stat", "kernel support",
             {{"port_state", probe.port_state ? "true" : "false"},
              {"hw_counters", probe.hw_counters ? "true" : "false"}});
    return std::unique_ptr<Collector>(std::move(c));
  };
  return spec;
}

}  // namespace rnic
