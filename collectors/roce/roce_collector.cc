#include "collectors/roce/roce_collector.h"

#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "collectors/collector.h"
#include "collectors/common/config_schema.h"
#include "collectors/common/log_once.h"
#include "collectors/host/host_facts.h"
#include "collectors/host/model_view.h"
#include "collectors/roce/ethtool_names.h"

namespace rnic {
namespace {

// Families, declared once (collectors/metrics/family.h): output, docs and
// the output checks read this table.
using Family = FamilyDesc;
using prometheus::MetricType;

constexpr char kPortLabels[] = "device,port,netdev";

constexpr Family kPauseFrames{
    "rnic_pfc_pause_frames_total", MetricType::Counter,
    "device,port,netdev,priority,direction",
    "PFC pause frames on an 802.1p priority (ethtool rx_prio<p>_pause / "
    "tx_prio<p>_pause). rx rising: the network cannot absorb this NIC's "
    "traffic; tx rising: this NIC cannot absorb the network's. The driver "
    "lists them only for PFC-enabled priorities."};
constexpr Family kPauseDuration{
    "rnic_pfc_pause_duration_seconds_total", MetricType::Counter,
    "device,port,netdev,priority,direction",
    "Time paused by PFC on a priority (ethtool rx_prio<p>_pause_duration / "
    "tx_prio<p>_pause_duration, microseconds converted to seconds). rx: time "
    "this port was not allowed to send on the priority."};
constexpr Family kPauseTransitions{
    "rnic_pfc_pause_transitions_total", MetricType::Counter,
    "device,port,netdev,priority",
    "XOFF to XON transitions of received PFC pause on a priority (ethtool "
    "rx_prio<p>_pause_transition)."};
constexpr Family kStormWarning{
    "rnic_pfc_pause_storm_warning_events_total", MetricType::Counter,
    kPortLabels,
    "Times the device sent pause frames for a long period (ethtool "
    "tx_pause_storm_warning_events)."};
constexpr Family kStormError{
    "rnic_pfc_pause_storm_error_events_total", MetricType::Counter, kPortLabels,
    "Times a pause storm hit the device's timeout and pause transmission was "
    "disabled; packets may have been dropped meanwhile (ethtool "
    "tx_pause_storm_error_events)."};
constexpr Family kPrioDiscards{
    "rnic_rx_priority_discards_total", MetricType::Counter,
    "device,port,netdev,priority",
    "Received packets of a priority discarded for lack of receive buffers "
    "(ethtool rx_prio<p>_discards)."};
constexpr Family kPrioBufDiscards{
    "rnic_rx_priority_buffer_discards_total", MetricType::Counter,
    "device,port,netdev,priority",
    "Received packets of a priority discarded for lack of per-host receive "
    "buffers (ethtool rx_prio<p>_buf_discard)."};
constexpr Family kPrioCongDiscards{
    "rnic_rx_priority_congestion_discards_total", MetricType::Counter,
    "device,port,netdev,priority",
    "Received packets of a priority discarded by per-host congestion "
    "handling (ethtool rx_prio<p>_cong_discard)."};
constexpr Family kPrioMarked{
    "rnic_rx_priority_ecn_marked_packets_total", MetricType::Counter,
    "device,port,netdev,priority",
    "Received packets of a priority ECN-marked by the device because of "
    "per-host congestion (ethtool rx_prio<p>_marked)."};
constexpr Family kPhyRxDiscards{
    "rnic_phy_rx_discards_total", MetricType::Counter, kPortLabels,
    "Packets received on the physical port and dropped for lack of buffers: "
    "the adapter is congested (ethtool rx_discards_phy)."};
constexpr Family kPhyTxDiscards{
    "rnic_phy_tx_discards_total", MetricType::Counter, kPortLabels,
    "Packets discarded on transmission without an error: link down, "
    "head-of-line drop, pause from the network (ethtool tx_discards_phy)."};
constexpr Family kRxOutOfBuffer{
    "rnic_rx_out_of_buffer_total", MetricType::Counter, kPortLabels,
    "Times a receive queue had no software buffer for incoming traffic "
    "(ethtool rx_out_of_buffer)."};
constexpr Family kPciStalledReads{
    "rnic_pcie_outbound_stalled_reads_ratio", MetricType::Gauge, kPortLabels,
    "Share of the last second (0-1) the NIC had outbound non-posted PCIe "
    "reads it could not issue for lack of credits (ethtool "
    "outbound_pci_stalled_rd / 100)."};
constexpr Family kPciStalledWrites{
    "rnic_pcie_outbound_stalled_writes_ratio", MetricType::Gauge, kPortLabels,
    "Share of the last second (0-1) the NIC had outbound posted PCIe writes "
    "it could not issue for lack of credits (ethtool outbound_pci_stalled_wr "
    "/ 100)."};
constexpr Family kPciStalledReadSeconds{
    "rnic_pcie_outbound_stalled_reads_seconds_total", MetricType::Counter,
    kPortLabels,
    "Seconds in which outbound PCIe reads were stalled more than 30% of the "
    "time (ethtool outbound_pci_stalled_rd_events)."};
constexpr Family kPciStalledWriteSeconds{
    "rnic_pcie_outbound_stalled_writes_seconds_total", MetricType::Counter,
    kPortLabels,
    "Seconds in which outbound PCIe writes were stalled more than 30% of the "
    "time (ethtool outbound_pci_stalled_wr_events)."};
constexpr Family kPciOverflow{
    "rnic_pcie_outbound_buffer_overflow_packets_total", MetricType::Counter,
    kPortLabels,
    "Packets dropped because the PCIe buffer overflowed: receive traffic "
    "exceeds what the host's PCIe link takes (ethtool "
    "outbound_pci_buffer_overflow)."};

constexpr Family kMtu{"rnic_netdev_mtu_bytes", MetricType::Gauge, kPortLabels,
                      "MTU of the netdev carrying the RoCE port "
                      "(/sys/class/net/<netdev>/mtu)."};
constexpr Family kMtu4096{
    "rnic_roce_mtu_4096_capable", MetricType::Gauge, kPortLabels,
    "1 if the netdev MTU is at least 4200 bytes, enough for a 4096-byte "
    "RoCE MTU with its headers; 0 if RoCE is limited to a smaller MTU."};
constexpr Family kPfcEnabled{
    "rnic_pfc_enabled", MetricType::Gauge, "device,port,netdev,priority",
    "1 if PFC is enabled on the 802.1p priority (dcbnl IEEE pfc_en), else 0. "
    "Absent when the driver has no DCB support."};
constexpr Family kDcbWilling{
    "rnic_dcb_willing", MetricType::Gauge, kPortLabels,
    "1 if the port is willing to accept the peer's DCBX configuration "
    "(dcbnl IEEE ETS willing bit)."};
constexpr Family kDcbDscp{
    "rnic_dcb_app_dscp_mappings", MetricType::Gauge, kPortLabels,
    "DSCP-to-priority entries in the port's DCB APP table; on mlx5 a "
    "non-zero count means trust mode dscp, 0 means trust pcp."};
constexpr Family kEcn{
    "rnic_roce_ecn_enabled", MetricType::Gauge,
    "device,port,netdev,priority,role",
    "1 if RoCE ECN is enabled on the priority for the role (np: "
    "notification point sends CNPs, rp: reaction point slows down), from "
    "/sys/class/net/<netdev>/ecn/roce_<role>/enable/<prio> (mlx5, MLNX_OFED)."};
constexpr Family kNuma{
    "rnic_numa_node", MetricType::Gauge, "device",
    "NUMA node of the RDMA device's PCI function (device/numa_node); -1 when "
    "the platform reports none."};
constexpr Family kIrqs{"rnic_irqs", MetricType::Gauge, "device",
                       "MSI/MSI-X interrupt vectors of the RDMA device's PCI "
                       "function (device/msi_irqs)."};
constexpr Family kIrqsOffNode{
    "rnic_irqs_off_numa_node", MetricType::Gauge, "device",
    "Of the device's interrupts, how many may run on a CPU outside the "
    "device's NUMA node (/proc/irq/<n>/smp_affinity_list against "
    "node<N>/cpulist). Should be 0 on a tuned host."};

constexpr const Family* kAllFamilies[] = {
    &kPauseFrames,
    &kPauseDuration,
    &kPauseTransitions,
    &kStormWarning,
    &kStormError,
    &kPrioDiscards,
    &kPrioBufDiscards,
    &kPrioCongDiscards,
    &kPrioMarked,
    &kPhyRxDiscards,
    &kPhyTxDiscards,
    &kRxOutOfBuffer,
    &kPciStalledReads,
    &kPciStalledWrites,
    &kPciStalledReadSeconds,
    &kPciStalledWriteSeconds,
    &kPciOverflow,
    &kMtu,
    &kMtu4096,
    &kPfcEnabled,
    &kDcbWilling,
    &kDcbDscp,
    &kEcn,
    &kNuma,
    &kIrqs,
    &kIrqsOffNode,
};

const Family& FamilyFor(RoceStatKind k) {
  switch (k) {
    case RoceStatKind::kPauseFrames:
      return kPauseFrames;
    case RoceStatKind::kPauseDurationMicros:
      return kPauseDuration;
    case RoceStatKind::kPauseTransitions:
      return kPauseTransitions;
    case RoceStatKind::kPrioDiscards:
      return kPrioDiscards;
    case RoceStatKind::kPrioBufferDiscards:
      return kPrioBufDiscards;
    case RoceStatKind::kPrioCongestionDiscards:
      return kPrioCongDiscards;
    case RoceStatKind::kPrioEcnMarked:
      return kPrioMarked;
    case RoceStatKind::kPauseStormWarning:
      return kStormWarning;
    case RoceStatKind::kPauseStormError:
      return kStormError;
    case RoceStatKind::kPhyRxDiscards:
      return kPhyRxDiscards;
    case RoceStatKind::kPhyTxDiscards:
      return kPhyTxDiscards;
    case RoceStatKind::kRxOutOfBuffer:
      return kRxOutOfBuffer;
    case RoceStatKind::kPciStalledReadsPercent:
      return kPciStalledReads;
    case RoceStatKind::kPciStalledWritesPercent:
      return kPciStalledWrites;
    case RoceStatKind::kPciStalledReadSeconds:
      return kPciStalledReadSeconds;
    case RoceStatKind::kPciStalledWriteSeconds:
      return kPciStalledWriteSeconds;
    case RoceStatKind::kPciBufferOverflow:
      return kPciOverflow;
  }
  return kPauseFrames;  // unreachable
}

double Scale(RoceStatKind k, std::uint64_t v) {
  switch (k) {
    case RoceStatKind::kPauseDurationMicros:
      return static_cast<double>(v) / 1e6;
    case RoceStatKind::kPciStalledReadsPercent:
    case RoceStatKind::kPciStalledWritesPercent:
      return static_cast<double>(v) / 100.0;
    default:
      return static_cast<double>(v);
  }
}

class RoceCollector final : public Collector {
 public:
  RoceCollector(RoceSources s, std::shared_ptr<host::HostModel> model)
      : src_(std::move(s)),
        model_(std::move(model), host::HostModel::Options{src_.sysfs}) {}

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    const auto snap = model_.Get();
    if (node_cpus_gate_.Changed(*snap)) node_cpus_.Clear();  // re-read then
    for (const auto& devp : snap->devices) {
      const host::Device& dev = *devp;
      bool device_done = false;
      for (const host::Port& p : dev.ports) {
        if (ctx.Expired()) break;
        if (!p.ethernet()) continue;
        if (!device_done) {
          device_done = true;
          DeviceFacts(dev, out);
        }
        // Built in kept buffers: no allocation per port and scrape.
        key_.assign(dev.name).append("/").append(p.label);
        log_key_.assign("netdev/").append(key_);
        const std::string& key = key_;
        if (p.netdev.empty()) {
          log_.Log(spdlog::level::warn, log_key_,
                   "no netdev found for RoCE port; its RoCE metrics are "
                   "skipped",
                   {{"device", dev.name}, {"port", p.label}});
          continue;
        }
        log_.Clear(log_key_);
        // Gone, or in another network namespace: nothing of it is readable
        // here, and held files would read a removed netdev's last values.
        if (!p.netdev_visible) continue;
        PortState& ps = StateFor(key, dev, p);
        if ((ps.no_ethtool || ps.no_dcb || ps.no_ecn) &&
            CoarseNow() >= ps.recheck) {
          Recheck(ps);
        }
        EthtoolCounters(ps, out);
        Mtu(ps, out);
        Dcb(ps, out);
        Ecn(ps, out);
      }
    }
    // What the model no longer has leaves no state behind: a removed or
    // renamed device, port or netdev. (Decided from the model, not from
    // what this scrape got to before its deadline; only when it changed.)
    if (!pruned_.Changed(*snap)) return Status::Ok();
    std::set<std::string, std::less<>> alive;
    for (const auto& devp : snap->devices) {
      alive.insert(devp->name);
      for (const host::Port& p : devp->ports) {
        if (!p.ethernet() || !p.netdev_visible) continue;
        alive.insert(devp->name + "/" + p.label);
        if (!p.netdev.empty()) alive.insert(p.netdev);
      }
    }
    std::erase_if(ports_,
                  [&](const auto& kv) { return !alive.contains(kv.first); });
    log_.ClearIf([&](std::string_view k) {
      const auto slash = k.find('/');
      return slash != std::string_view::npos &&
             !alive.contains(k.substr(slash + 1));
    });
    return Status::Ok();
  }

 private:
  struct Pick {
    std::size_t index;
    RoceStat stat;
    LabelSetPtr labels;
  };
  // What a port's scrape needs, built when the port (or its netdev) appears.
  struct PortState {
    std::uint64_t instance = 0;
    std::string netdev;
    LabelSetPtr base;                     // device, port, netdev
    std::array<LabelSetPtr, 8> priority;  // base + priority
    std::shared_ptr<const EthtoolNames> names;
    std::vector<Pick> picks;
    std::string mtu_path;
    CachedFd mtu_fd;  // read at every scrape: held open
    // What the netdev's driver lacks (ethtool statistics, dcbnl, the ECN
    // files) is not asked again at every scrape: a driver does not grow an
    // operation while it is bound. Looked at again when a read says the
    // netdev vanished, and every kRecheckUnsupported anyway (a driver
    // reloaded under the same netdev name).
    bool no_ethtool = false;
    bool no_dcb = false;
    bool no_ecn = false;
    std::chrono::steady_clock::time_point recheck{};
  };
  static constexpr std::chrono::minutes kRecheckUnsupported{5};

  static bool Vanished(int err) { return err == ENODEV || err == ENXIO; }
  static void Unsupported(PortState& ps, bool& flag) {
    if (!ps.no_ethtool && !ps.no_dcb && !ps.no_ecn) {
      ps.recheck = CoarseNow() + kRecheckUnsupported;
    }
    flag = true;
  }
  static void Recheck(PortState& ps) {
    ps.no_ethtool = ps.no_dcb = ps.no_ecn = false;
  }

  PortState& StateFor(const std::string& key, const host::Device& dev,
                      const host::Port& p) {
    PortState& ps = ports_[key];
    if (ps.instance != dev.instance || ps.netdev != p.netdev || !ps.base) {
      ps = PortState{};
      ps.instance = dev.instance;
      ps.netdev = p.netdev;
      ps.base = p.labels->With({{"netdev", p.netdev}});
      for (int prio = 0; prio < 8; ++prio) {
        ps.priority[static_cast<std::size_t>(prio)] =
            ps.base->With({{"priority", std::to_string(prio)}});
      }
    }
    return ps;
  }

  void EthtoolCounters(PortState& ps, MetricSet& out) {
    if (ps.no_ethtool) return;
    const std::string key = "ethtool/" + ps.netdev;
    auto snap = src_.ethtool->Read(ps.netdev);
    if (!snap.ok()) {
      const int err = snap.error().errno_value;
      Problem(key, snap.error(),
              err == EOPNOTSUPP ? spdlog::level::info : spdlog::level::warn);
      if (err == EOPNOTSUPP) Unsupported(ps, ps.no_ethtool);
      if (Vanished(err)) Recheck(ps);
      return;
    }
    log_.Clear(key);
    if (ps.names != snap->names) {
      ps.names = snap->names;
      ps.picks.clear();
      for (std::size_t i = 0; i < snap->names->size(); ++i) {
        auto st = ClassifyEthtoolName((*snap->names)[i]);
        if (!st) continue;
        LabelSetPtr l = ps.base;
        if (st->priority >= 0 && !st->direction.empty()) {
          l = ps.base->With({{"priority", std::to_string(st->priority)},
                             {"direction", st->direction}});
        } else if (st->priority >= 0) {
          l = ps.base->With({{"priority", std::to_string(st->priority)}});
        } else if (!st->direction.empty()) {
          l = ps.base->With({{"direction", st->direction}});
        }
        ps.picks.push_back(Pick{i, *st, std::move(l)});
      }
    }
    for (const Pick& pk : ps.picks) {
      if (pk.index >= snap->values.size()) continue;
      out.Add(FamilyFor(pk.stat.kind), pk.labels,
              Scale(pk.stat.kind, snap->values[pk.index]));
    }
  }

  void Mtu(PortState& ps, MetricSet& out) {
    const std::string key = "mtu/" + ps.netdev;
    if (ps.mtu_path.empty()) {
      ps.mtu_path = src_.sysfs + "/class/net/" + ps.netdev + "/mtu";
    }
    auto mtu = ReadInt(ps.mtu_fd, ps.mtu_path);
    if (!mtu.ok()) {
      Problem(key, mtu.error(), spdlog::level::warn);
      if (Vanished(mtu.error().errno_value)) Recheck(ps);
      return;
    }
    log_.Clear(key);
    out.Add(kMtu, ps.base, *mtu);
    out.Add(kMtu4096, ps.base, *mtu >= kRoce4096MinNetdevMtu ? 1 : 0);
  }

  void Dcb(PortState& ps, MetricSet& out) {
    if (ps.no_dcb) return;
    const std::string key = "dcb/" + ps.netdev;
    auto info = src_.dcb->Query(ps.netdev);
    if (!info.ok()) {
      // EOPNOTSUPP: PFC state unknown for this driver, said once.
      const int err = info.error().errno_value;
      Problem(key, info.error(),
              err == EOPNOTSUPP ? spdlog::level::info : spdlog::level::warn);
      if (err == EOPNOTSUPP) Unsupported(ps, ps.no_dcb);
      if (Vanished(err)) Recheck(ps);
      return;
    }
    log_.Clear(key);
    if (info->pfc_enabled) {
      for (std::size_t p = 0; p < 8; ++p) {
        out.Add(kPfcEnabled, ps.priority[p], (*info->pfc_enabled >> p) & 1);
      }
    }
    if (info->willing) out.Add(kDcbWilling, ps.base, *info->willing ? 1 : 0);
    if (info->app_dscp_entries) {
      out.Add(kDcbDscp, ps.base, *info->app_dscp_entries);
    }
  }

  void Ecn(PortState& ps, MetricSet& out) {
    if (ps.no_ecn) return;
    const std::string key = "ecn/" + ps.netdev;
    auto ecn = ReadRoceEcn(src_.sysfs, ps.netdev);
    if (!ecn.ok()) {
      // Upstream drivers have no such files: normal, said once at debug.
      const int err = ecn.error().errno_value;
      Problem(key, ecn.error(),
              err == ENOENT ? spdlog::level::debug : spdlog::level::warn);
      if (err == ENOENT) Unsupported(ps, ps.no_ecn);
      return;
    }
    log_.Clear(key);
    for (const auto& e : *ecn) {
      out.Add(kEcn,
              ps.base->With(
                  {{"priority", std::to_string(e.priority)}, {"role", e.role}}),
              e.enabled ? 1 : 0);
    }
  }

  void DeviceFacts(const host::Device& dev, MetricSet& out) {
    if (dev.numa) {
      out.Add(kNuma, dev.labels, *dev.numa);
    } else if (!dev.numa_node.empty()) {
      Problem("numa/" + dev.name,
              Error{"unparsable device/numa_node \"" + dev.numa_node + "\""},
              spdlog::level::warn);
    }
    // Virtual devices (rxe, siw) have no PCI function and no IRQs.
    if (!dev.irqs_known) return;
    out.Add(kIrqs, dev.labels, static_cast<double>(dev.irqs.size()));
    if (!dev.numa || *dev.numa < 0) return;  // no node to compare against
    auto cpus = node_cpus_.Get(*dev.numa);
    if (!cpus.ok()) {
      Problem("nodecpus/" + dev.name, cpus.error(), spdlog::level::warn);
      return;
    }
    log_.Clear("nodecpus/" + dev.name);
    const IrqPlacement placed =
        CheckIrqPlacement(src_.procfs, dev.irqs, **cpus);
    if (!placed.errors.empty()) {
      Problem(
          "affinity/" + dev.name,
          Error{std::to_string(placed.errors.size()) +
                " IRQ affinities unreadable, first: " + placed.errors.front()},
          spdlog::level::warn);
    } else {
      log_.Clear("affinity/" + dev.name);
    }
    // A count over no readable IRQ would be a made-up 0.
    if (placed.checked > 0 || placed.irqs == 0) {
      out.Add(kIrqsOffNode, dev.labels, placed.off_node);
    }
  }

  // Logged the first time, or when its errno changes (EOPNOTSUPP turning
  // into ENODEV is news), never at every scrape.
  void Problem(const std::string& key, const Error& e,
               spdlog::level::level_enum level) {
    log_.Log(level, key, "value skipped", e);
  }

  RoceSources src_;
  host::ModelView model_;
  host::GenerationGate node_cpus_gate_;
  host::GenerationGate pruned_;
  std::string key_, log_key_;  // per-port keys, buffers kept across scrapes
  NodeCpuCache node_cpus_{src_.sysfs};
  std::map<std::string, PortState, std::less<>> ports_;  // "device/port"
  LogOnce log_{"roce"};
};

struct RoceConfig {
  std::string ethtool_stats_dir;
  std::string dcb_dir;
};

// The `roce:` keys, each declared once (collectors/common/config_schema.h).
const config::Section<RoceConfig>& Schema() {
  static const config::Section<RoceConfig> section = [] {
    config::MapSchema<RoceConfig> s;
    s.Key("ethtool_stats_dir", &RoceConfig::ethtool_stats_dir,
          config::NonEmptyString(),
          "replay captured `ethtool -S` output from this directory instead of "
          "asking the kernel (tests, offline diagnosis)");
    s.Key("dcb_dir", &RoceConfig::dcb_dir, config::NonEmptyString(),
          "replay captured dcbnl answers from this directory");
    return config::Section<RoceConfig>{
        "roce",
        "RoCE fabric and host tuning (`roce` collector); "
        "[details](collectors/roce/README.md).",
        config::Map(std::move(s))};
  }();
  return section;
}

Result<RoceConfig> ParseConfig(const YAML::Node& node) {
  return Schema().Parse(node);
}

}  // namespace

std::unique_ptr<Collector> MakeRoceCollector(
    RoceSources sources, std::shared_ptr<host::HostModel> model) {
  if (!sources.ethtool) sources.ethtool = MakeIoctlEthtoolStats();
  if (!sources.dcb) sources.dcb = MakeRtnetlinkDcbSource();
  return std::make_unique<RoceCollector>(std::move(sources), std::move(model));
}

CollectorSpec MakeRoceCollectorSpec() {
  CollectorSpec s;
  s.name = "roce";
  s.help =
      "RoCE fabric and host tuning for every RDMA port with an Ethernet link "
      "layer: per-priority PFC pause, pause storms, discards and ECN marks "
      "from the netdev's ethtool statistics (SIOCETHTOOL); MTU, PFC-enabled "
      "priorities (dcbnl), RoCE ECN switches, NUMA node and IRQ placement "
      "from sysfs/procfs.";
  s.default_enabled = true;
  s.families.assign(std::begin(kAllFamilies), std::end(kAllFamilies));
  s.check_config = CheckWith(ParseConfig);
  s.config_doc = Schema().Doc();
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto cfg = ParseConfig(args.config);
    if (!cfg.ok()) return cfg.error();
    RoceSources src;
    src.sysfs = args.paths.sysfs;
    src.procfs = args.paths.procfs;
    // Replay of captures, for tests and offline diagnosis of a host's files.
    if (!cfg->ethtool_stats_dir.empty()) {
      src.ethtool = MakeFixtureEthtoolStats(cfg->ethtool_stats_dir);
    }
    if (!cfg->dcb_dir.empty()) src.dcb = MakeFixtureDcbSource(cfg->dcb_dir);
    return MakeRoceCollector(std::move(src),
                             args.shared ? args.shared->host : nullptr);
  };
  return s;
}

}  // namespace rnic
