#include "collectors/netlink/netlink_stat_collector.h"

#include <spdlog/spdlog.h>

#include <map>
#include <utility>

#include "collectors/common/hw_counters.h"
#include "collectors/netlink/libnl_transport.h"
#include "collectors/netlink/rdma_nl_uapi.h"

namespace rnic {
namespace nl {
namespace {

constexpr const char* kPortStateHelp =
    "Logical port state as the kernel numbers it (enum ib_port_state: "
    "1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER)";
constexpr const char* kPortPhysStateHelp =
    "Physical port state as the kernel numbers it (enum ib_port_phys_state: "
    "1 SLEEP, 2 POLLING, 3 DISABLED, 4 PORT_CONFIGURATION_TRAINING, 5 LINK_UP, "
    "6 LINK_ERROR_RECOVERY, 7 PHY_TEST)";
constexpr const char* kOptionalHelp =
    "Optional counter the port supports (STAT_GET_STATUS); enabled=\"1\" when "
    "it is on. Turn one on with `rdma statistic set link DEV/PORT "
    "optional-counters NAME`";
constexpr const char* kBoundQpsHelp =
    "QPs bound to a counter (rdma statistic qp auto/manual mode), by process";

bool ParseBool(const std::string& s, bool dflt) {
  if (s == "true" || s == "1" || s == "yes") return true;
  if (s == "false" || s == "0" || s == "no") return false;
  return dflt;
}

std::string QpCounterFamily(std::string_view counter) {
  std::string out = "rnic_qp_counter_";
  for (char c : counter) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  return out + "_total";
}

}  // namespace

TransportOpener LibnlOpener() {
  return []() -> Result<std::shared_ptr<NetlinkTransport>> {
    auto t = LibnlTransport::Open();
    if (!t.ok()) return t.error();
    return std::shared_ptr<NetlinkTransport>(std::move(t).value());
  };
}

NetlinkStatCollector::NetlinkStatCollector(TransportOpener opener,
                                           Options options)
    : opener_(std::move(opener)),
      options_(std::move(options)),
      comms_(options_.procfs) {}

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
    auto ports = src.Ports(d.index);
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
                                     const PortInfo& port, const Error& err) {
  return HandlePartError(parts_, *transport_, part, port.dev_index,
                         port.dev_name, err);
}

bool EnsureTransport(const TransportOpener& opener,
                     std::shared_ptr<NetlinkTransport>& transport,
                     PartSwitch& parts) {
  if (transport) return true;
  auto t = opener();
  if (!t.ok()) {
    parts.WarnOnce("open", "no RDMA netlink: " + t.error().ToString());
    return false;
  }
  transport = std::move(t).value();
  parts.Clear("open");
  return true;
}

Status NetlinkStatCollector::Collect(const ScrapeContext& ctx, MetricSet& out) {
  if (!EnsureTransport(opener_, transport_, parts_)) return Status::Ok();
  comms_.Clear();
  RdmaNetlinkSource src(*transport_);
  auto devs = src.Devices();
  if (!devs.ok()) {
    parts_.WarnOnce("devices",
                    "device dump failed: " + devs.error().ToString());
    if (!IsPermission(devs.error().errno_value)) transport_.reset();
    return devs.error();
  }
  parts_.Clear("devices");

  Status fatal;
  for (const auto& dev : *devs) {
    if (ctx.Expired()) break;
    auto ports = src.Ports(dev.index);
    if (!ports.ok()) {
      Status st = HandlePartError(parts_, *transport_, "ports", dev.index,
                                  dev.name, ports.error());
      if (!st.ok()) fatal = st;
      continue;
    }
    for (PortInfo port : *ports) {
      port.dev_name = dev.name;  // the name this scrape knows it by
      const std::string port_str = std::to_string(port.port);
      Labels labels{{"device", dev.name}, {"port", port_str}};
      if (port.state) {
        out.AddGauge("rnic_port_state", kPortStateHelp, labels, *port.state);
      }
      if (port.phys_state) {
        out.AddGauge("rnic_port_physical_state", kPortPhysStateHelp, labels,
                     *port.phys_state);
      }

      if (parts_.Enabled(PartKey("stat", dev.name))) {
        auto stats = src.PortStats(dev.index, port.port);
        if (stats.ok()) {
          const std::string key_prefix =
              std::to_string(dev.index) + "/" + dev.name + "/" + port_str + "/";
          for (const auto& c : stats->counters) {
            if (HwCounterKindOf(c.name) == HwCounterKind::kGauge) {
              // A level some drivers list among counters (bnxt_re active_qps).
              out.AddGauge(HwCounterFamilyName(c.name), HwCounterHelp(c.name),
                           labels, static_cast<double>(c.value));
              continue;
            }
            const std::uint64_t v = wraps_.Update(key_prefix + c.name, c.value,
                                                  HwCounterWidthBits(c.name));
            out.AddCounter(HwCounterFamilyName(c.name), HwCounterHelp(c.name),
                           labels, static_cast<double>(v));
          }
        } else if (Status st = OnError("stat", port, stats.error()); !st.ok()) {
          fatal = st;
        }
      }

      if (parts_.Enabled(PartKey("status", dev.name))) {
        auto status = src.CounterStatus(dev.index, port.port);
        if (status.ok()) {
          for (const auto& oc : *status) {
            out.AddGauge("rnic_optional_counter_info", kOptionalHelp,
                         {{"device", dev.name},
                          {"port", port_str},
                          {"counter", oc.name},
                          {"enabled", oc.enabled ? "1" : "0"}},
                         1);
          }
        } else if (Status st = OnError("status", port, status.error());
                   !st.ok()) {
          fatal = st;
        }
      }

      if (options_.qp_counters &&
          parts_.Enabled(PartKey("qp_counters", dev.name))) {
        CollectBound(src, port, out, &fatal);
      }
    }
  }
  wraps_.Sweep();
  return fatal;
}

void NetlinkStatCollector::CollectBound(RdmaNetlinkSource& src,
                                        const PortInfo& port, MetricSet& out,
                                        Status* fatal) {
  struct Agg {
    std::string comm;
    std::string pid;
    std::uint64_t qps = 0;
    std::map<std::string, std::uint64_t> sums;
  };
  std::map<std::pair<std::string, std::string>, Agg> by_owner;
  Status st =
      src.BoundCounters(port.dev_index, port.port, [&](const BoundCounter& bc) {
        const std::string& comm = comms_.Resolve(bc.owner);
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
    if (Status h = OnError("qp_counters", port, st.error()); !h.ok()) {
      *fatal = h;
    }
    return;
  }
  const std::string port_str = std::to_string(port.port);
  for (const auto& [key, a] : by_owner) {
    Labels labels{
        {"device", port.dev_name}, {"port", port_str}, {"comm", a.comm}};
    if (options_.qp_counters_by_pid) labels.push_back({"pid", a.pid});
    out.AddGauge("rnic_qp_counter_bound_qps", kBoundQpsHelp, labels,
                 static_cast<double>(a.qps));
    for (const auto& [name, sum] : a.sums) {
      out.AddCounter(QpCounterFamily(name),
                     "Sum of " + name +
                         " over the counters bound to this process's QPs. "
                         "Already included in rnic_hw_" +
                         name + "_total" + "; resets when the QPs go away",
                     labels, static_cast<double>(sum));
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
      {"qp-counters",
       "Dump counters bound to QPs (only present when the operator enabled "
       "`rdma statistic qp set ... auto` or bound counters manually)",
       "true"},
      {"qp-counters-by-pid",
       "Add a pid label to the QP-bound counter series (higher cardinality)",
       "false"},
  };
  spec.metrics = {
      {"rnic_port_state", "gauge", "device,port", nl::kPortStateHelp},
      {"rnic_port_physical_state", "gauge", "device,port",
       nl::kPortPhysStateHelp},
      {"rnic_hw_<counter>", "gauge", "device,port",
       "A driver hw counter entry that is a level, not a count (e.g. bnxt_re "
       "active_qps), from RDMA_NLDEV_CMD_STAT_GET"},
      {"rnic_hw_<counter>_total", "counter", "device,port",
       "Driver hardware counter <counter> of the port "
       "(RDMA_NLDEV_CMD_STAT_GET; "
       "same value as sysfs hw_counters/<counter>), 32-bit counters extended "
       "to 64 bits"},
      {"rnic_optional_counter_info", "gauge", "device,port,counter,enabled",
       nl::kOptionalHelp},
      {"rnic_qp_counter_bound_qps", "gauge", "device,port,comm",
       nl::kBoundQpsHelp},
      {"rnic_qp_counter_<counter>_total", "counter", "device,port,comm",
       "Sum of <counter> over the counters bound to a process's QPs; already "
       "included in rnic_hw_<counter>_total (never add the two). A pid label "
       "(the process id) is added with "
       "--collector.netlink_stat.qp-counters-by-pid"},
  };
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    nl::NetlinkStatCollector::Options o;
    o.qp_counters = nl::ParseBool(args.Option("qp-counters"), true);
    o.qp_counters_by_pid =
        nl::ParseBool(args.Option("qp-counters-by-pid"), false);
    o.procfs = args.paths.procfs;
    auto c = std::make_unique<nl::NetlinkStatCollector>(nl::LibnlOpener(), o);
    const auto probe = c->ProbeKernel();
    if (args.shared) {
      args.shared->netlink_port_state = probe.port_state;
      args.shared->netlink_hw_counters = probe.hw_counters;
    }
    spdlog::debug("netlink_stat: port state over netlink={}, hw counters={}",
                  probe.port_state, probe.hw_counters);
    return std::unique_ptr<Collector>(std::move(c));
  };
  return spec;
}

}  // namespace rnic
