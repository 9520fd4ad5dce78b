#include "collectors/roce/roce_collector.h"

#include <spdlog/spdlog.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "collectors/roce/ethtool_names.h"
#include "collectors/roce/host_facts.h"
#include "collectors/roce/roce_topology.h"

namespace rnic {
namespace {

// Family names and HELP texts: one table, used both for output and for the
// MetricDoc list (README, output check).
struct Family {
  const char* name;
  const char* type;
  const char* labels;
  const char* help;
};

constexpr char kPortLabels[] = "device,port,netdev";

constexpr Family kPauseFrames{
    "rnic_pfc_pause_frames_total", "counter",
    "device,port,netdev,priority,direction",
    "PFC pause frames on an 802.1p priority (ethtool rx_prio<p>_pause / "
    "tx_prio<p>_pause). rx rising: the network cannot absorb this NIC's "
    "traffic; tx rising: this NIC cannot absorb the network's. The driver "
    "lists them only for PFC-enabled priorities."};
constexpr Family kPauseDuration{
    "rnic_pfc_pause_duration_seconds_total", "counter",
    "device,port,netdev,priority,direction",
    "Time paused by PFC on a priority (ethtool rx_prio<p>_pause_duration / "
    "tx_prio<p>_pause_duration, microseconds converted to seconds). rx: time "
    "this port was not allowed to send on the priority."};
constexpr Family kPauseTransitions{
    "rnic_pfc_pause_transitions_total", "counter",
    "device,port,netdev,priority",
    "XOFF to XON transitions of received PFC pause on a priority (ethtool "
    "rx_prio<p>_pause_transition)."};
constexpr Family kStormWarning{
    "rnic_pfc_pause_storm_warning_events_total", "counter", kPortLabels,
    "Times the device sent pause frames for a long period (ethtool "
    "tx_pause_storm_warning_events)."};
constexpr Family kStormError{
    "rnic_pfc_pause_storm_error_events_total", "counter", kPortLabels,
    "Times a pause storm hit the device's timeout and pause transmission was "
    "disabled; packets may have been dropped meanwhile (ethtool "
    "tx_pause_storm_error_events)."};
constexpr Family kPrioDiscards{
    "rnic_rx_priority_discards_total", "counter", "device,port,netdev,priority",
    "Received packets of a priority discarded for lack of receive buffers "
    "(ethtool rx_prio<p>_discards)."};
constexpr Family kPrioBufDiscards{
    "rnic_rx_priority_buffer_discards_total", "counter",
    "device,port,netdev,priority",
    "Received packets of a priority discarded for lack of per-host receive "
    "buffers (ethtool rx_prio<p>_buf_discard)."};
constexpr Family kPrioCongDiscards{
    "rnic_rx_priority_congestion_discards_total", "counter",
    "device,port,netdev,priority",
    "Received packets of a priority discarded by per-host congestion "
    "handling (ethtool rx_prio<p>_cong_discard)."};
constexpr Family kPrioMarked{
    "rnic_rx_priority_ecn_marked_packets_total", "counter",
    "device,port,netdev,priority",
    "Received packets of a priority ECN-marked by the device because of "
    "per-host congestion (ethtool rx_prio<p>_marked)."};
constexpr Family kPhyRxDiscards{
    "rnic_phy_rx_discards_total", "counter", kPortLabels,
    "Packets received on the physical port and dropped for lack of buffers: "
    "the adapter is congested (ethtool rx_discards_phy)."};
constexpr Family kPhyTxDiscards{
    "rnic_phy_tx_discards_total", "counter", kPortLabels,
    "Packets discarded on transmission without an error: link down, "
    "head-of-line drop, pause from the network (ethtool tx_discards_phy)."};
constexpr Family kRxOutOfBuffer{
    "rnic_rx_out_of_buffer_total", "counter", kPortLabels,
    "Times a receive queue had no software buffer for incoming traffic "
    "(ethtool rx_out_of_buffer)."};
constexpr Family kPciStalledReads{
    "rnic_pcie_outbound_stalled_reads_ratio", "gauge", kPortLabels,
    "Share of the last second (0-1) the NIC had outbound non-posted PCIe "
    "reads it could not issue for lack of credits (ethtool "
    "outbound_pci_stalled_rd / 100)."};
constexpr Family kPciStalledWrites{
    "rnic_pcie_outbound_stalled_writes_ratio", "gauge", kPortLabels,
    "Share of the last second (0-1) the NIC had outbound posted PCIe writes "
    "it could not issue for lack of credits (ethtool outbound_pci_stalled_wr "
    "/ 100)."};
constexpr Family kPciStalledReadSeconds{
    "rnic_pcie_outbound_stalled_reads_seconds_total", "counter", kPortLabels,
    "Seconds in which outbound PCIe reads were stalled more than 30% of the "
    "time (ethtool outbound_pci_stalled_rd_events)."};
constexpr Family kPciStalledWriteSeconds{
    "rnic_pcie_outbound_stalled_writes_seconds_total", "counter", kPortLabels,
    "Seconds in which outbound PCIe writes were stalled more than 30% of the "
    "time (ethtool outbound_pci_stalled_wr_events)."};
constexpr Family kPciOverflow{
    "rnic_pcie_outbound_buffer_overflow_packets_total", "counter", kPortLabels,
    "Packets dropped because the PCIe buffer overflowed: receive traffic "
    "exceeds what the host's PCIe link takes (ethtool "
    "outbound_pci_buffer_overflow)."};

constexpr Family kMtu{"rnic_netdev_mtu_bytes", "gauge", kPortLabels,
                      "MTU of the netdev carrying the RoCE port "
                      "(/sys/class/net/<netdev>/mtu)."};
constexpr Family kMtu4096{
    "rnic_roce_mtu_4096_capable", "gauge", kPortLabels,
    "1 if the netdev MTU is at least 4200 bytes, enough for a 4096-byte "
    "RoCE MTU with its headers; 0 if RoCE is limited to a smaller MTU."};
constexpr Family kPfcEnabled{
    "rnic_pfc_enabled", "gauge", "device,port,netdev,priority",
    "1 if PFC is enabled on the 802.1p priority (dcbnl IEEE pfc_en), else 0. "
    "Absent when the driver has no DCB support."};
constexpr Family kDcbWilling{
    "rnic_dcb_willing", "gauge", kPortLabels,
    "1 if the port is willing to accept the peer's DCBX configuration "
    "(dcbnl IEEE ETS willing bit)."};
constexpr Family kDcbDscp{
    "rnic_dcb_app_dscp_mappings", "gauge", kPortLabels,
    "DSCP-to-priority entries in the port's DCB APP table; on mlx5 a "
    "non-zero count means trust mode dscp, 0 means trust pcp."};
constexpr Family kEcn{
    "rnic_roce_ecn_enabled", "gauge", "device,port,netdev,priority,role",
    "1 if RoCE ECN is enabled on the priority for the role (np: "
    "notification point sends CNPs, rp: reaction point slows down), from "
    "/sys/class/net/<netdev>/ecn/roce_<role>/enable/<prio> (mlx5, MLNX_OFED)."};
constexpr Family kNuma{
    "rnic_numa_node", "gauge", "device",
    "NUMA node of the RDMA device's PCI function (device/numa_node); -1 when "
    "the platform reports none."};
constexpr Family kIrqs{"rnic_irqs", "gauge", "device",
                       "MSI/MSI-X interrupt vectors of the RDMA device's PCI "
                       "function (device/msi_irqs)."};
constexpr Family kIrqsOffNode{
    "rnic_irqs_off_numa_node", "gauge", "device",
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

void Add(MetricSet& out, const Family& f, Labels labels, double v) {
  if (f.type[0] == 'c') {
    out.AddCounter(f.name, f.help, std::move(labels), v);
  } else {
    out.AddGauge(f.name, f.help, std::move(labels), v);
  }
}

Labels With(Labels base, std::initializer_list<Label> extra) {
  for (const auto& l : extra) base.push_back(l);
  return base;
}

class RoceCollector final : public Collector {
 public:
  explicit RoceCollector(RoceSources s) : src_(std::move(s)) {}

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    auto ports = DiscoverRocePorts(src_.sysfs);
    if (!ports.ok()) {
      Problem("discover", ports.error(), spdlog::level::warn);
      return Status::Ok();
    }
    Clear("discover");
    std::set<std::string> devices_done;
    std::set<std::string> netdevs_done;
    for (const auto& p : *ports) {
      if (ctx.Expired()) break;
      if (devices_done.insert(p.device).second) DeviceFacts(p, out);
      if (p.netdev.empty()) {
        Problem(
            "netdev/" + p.device + "/" + p.port,
            Error{"no netdev found for RoCE port " + p.device + "/" + p.port},
            spdlog::level::warn);
        continue;
      }
      Clear("netdev/" + p.device + "/" + p.port);
      const Labels base = {
          {"device", p.device}, {"port", p.port}, {"netdev", p.netdev}};
      EthtoolCounters(p.netdev, base, out);
      Mtu(p.netdev, base, out);
      Dcb(p.netdev, base, out);
      Ecn(p.netdev, base, out);
      netdevs_done.insert(p.netdev);
    }
    // Forget cached tables of netdevs that are gone.
    for (auto it = picks_.begin(); it != picks_.end();) {
      it = netdevs_done.count(it->first) ? std::next(it) : picks_.erase(it);
    }
    return Status::Ok();
  }

 private:
  struct Picks {
    std::shared_ptr<const EthtoolNames> names;
    std::vector<std::pair<std::size_t, RoceStat>> stats;
  };

  void EthtoolCounters(const std::string& netdev, const Labels& base,
                       MetricSet& out) {
    const std::string key = "ethtool/" + netdev;
    auto snap = src_.ethtool->Read(netdev);
    if (!snap.ok()) {
      Problem(key, snap.error(),
              snap.error().errno_value == EOPNOTSUPP ? spdlog::level::info
                                                     : spdlog::level::warn);
      return;
    }
    Clear(key);
    Picks& picks = picks_[netdev];
    if (picks.names != snap->names) {
      picks.names = snap->names;
      picks.stats.clear();
      for (std::size_t i = 0; i < snap->names->size(); ++i) {
        if (auto s = ClassifyEthtoolName((*snap->names)[i])) {
          picks.stats.emplace_back(i, *s);
        }
      }
    }
    for (const auto& [i, s] : picks.stats) {
      if (i >= snap->values.size()) continue;
      Labels l = base;
      if (s.priority >= 0) {
        l.push_back({"priority", std::to_string(s.priority)});
      }
      if (!s.direction.empty()) {
        l.push_back({"direction", std::string(s.direction)});
      }
      Add(out, FamilyFor(s.kind), std::move(l), Scale(s.kind, snap->values[i]));
    }
  }

  void Mtu(const std::string& netdev, const Labels& base, MetricSet& out) {
    const std::string key = "mtu/" + netdev;
    auto mtu = ReadNetdevMtu(src_.sysfs, netdev);
    if (!mtu.ok()) {
      Problem(key, mtu.error(), spdlog::level::warn);
      return;
    }
    Clear(key);
    Add(out, kMtu, base, *mtu);
    Add(out, kMtu4096, base, *mtu >= kRoce4096MinNetdevMtu ? 1 : 0);
  }

  void Dcb(const std::string& netdev, const Labels& base, MetricSet& out) {
    const std::string key = "dcb/" + netdev;
    auto info = src_.dcb->Query(netdev);
    if (!info.ok()) {
      // EOPNOTSUPP: PFC state unknown for this driver, said once.
      Problem(key, info.error(),
              info.error().errno_value == EOPNOTSUPP ? spdlog::level::info
                                                     : spdlog::level::warn);
      return;
    }
    Clear(key);
    if (info->pfc_enabled) {
      for (int p = 0; p < 8; ++p) {
        Add(out, kPfcEnabled, With(base, {{"priority", std::to_string(p)}}),
            (*info->pfc_enabled >> p) & 1);
      }
    }
    if (info->willing) Add(out, kDcbWilling, base, *info->willing ? 1 : 0);
    if (info->app_dscp_entries) {
      Add(out, kDcbDscp, base, *info->app_dscp_entries);
    }
  }

  void Ecn(const std::string& netdev, const Labels& base, MetricSet& out) {
    const std::string key = "ecn/" + netdev;
    auto ecn = ReadRoceEcn(src_.sysfs, netdev);
    if (!ecn.ok()) {
      // Upstream drivers have no such files: normal, said once at debug.
      Problem(key, ecn.error(),
              ecn.error().errno_value == ENOENT ? spdlog::level::debug
                                                : spdlog::level::warn);
      return;
    }
    Clear(key);
    for (const auto& e : *ecn) {
      Add(out, kEcn,
          With(base,
               {{"priority", std::to_string(e.priority)}, {"role", e.role}}),
          e.enabled ? 1 : 0);
    }
  }

  void DeviceFacts(const RocePort& p, MetricSet& out) {
    const Labels base = {{"device", p.device}};
    auto node = ReadNumaNode(p.device_dir);
    if (node.ok()) {
      Clear("numa/" + p.device);
      Add(out, kNuma, base, *node);
    } else {
      // Virtual devices (rxe, siw) have no PCI function.
      Problem("numa/" + p.device, node.error(),
              node.error().errno_value == ENOENT ? spdlog::level::debug
                                                 : spdlog::level::warn);
    }
    auto irqs = ListMsiIrqs(p.device_dir);
    if (!irqs.ok()) {
      Problem("irqs/" + p.device, irqs.error(),
              irqs.error().errno_value == ENOENT ? spdlog::level::debug
                                                 : spdlog::level::warn);
      return;
    }
    Clear("irqs/" + p.device);
    Add(out, kIrqs, base, static_cast<double>(irqs->size()));
    if (!node.ok() || *node < 0) return;  // no node to compare against
    auto cpus = ReadNodeCpus(src_.sysfs, *node);
    if (!cpus.ok()) {
      Problem("nodecpus/" + p.device, cpus.error(), spdlog::level::warn);
      return;
    }
    Clear("nodecpus/" + p.device);
    const IrqPlacement placed = CheckIrqPlacement(src_.procfs, *irqs, *cpus);
    if (!placed.errors.empty()) {
      Problem(
          "affinity/" + p.device,
          Error{std::to_string(placed.errors.size()) +
                " IRQ affinities unreadable, first: " + placed.errors.front()},
          spdlog::level::warn);
    } else {
      Clear("affinity/" + p.device);
    }
    // A count over no readable IRQ would be a made-up 0.
    if (placed.checked > 0 || placed.irqs == 0) {
      Add(out, kIrqsOffNode, base, placed.off_node);
    }
  }

  // Logs a failure the first time it is seen, or when its errno changes
  // (EOPNOTSUPP turning into ENODEV is news), never at every scrape.
  void Problem(const std::string& key, const Error& e,
               spdlog::level::level_enum level) {
    auto it = problems_.find(key);
    if (it != problems_.end() && it->second == e.errno_value) return;
    problems_[key] = e.errno_value;
    spdlog::log(level,
                "collector=roce msg=\"value skipped\" what={} err=\"{}\"", key,
                e.ToString());
  }
  void Clear(const std::string& key) { problems_.erase(key); }

  RoceSources src_;
  std::map<std::string, Picks> picks_;
  std::map<std::string, int> problems_;  // key -> errno logged
};

struct RoceConfig {
  std::string ethtool_stats_dir;
  std::string dcb_dir;
};

Result<RoceConfig> ParseConfig(const YAML::Node& node) {
  RoceConfig c;
  if (!node || node.IsNull()) return c;
  if (!node.IsMap()) return Error{"roce: must be a map"};
  try {
    for (const auto& kv : node) {
      const std::string k = kv.first.as<std::string>();
      if (k == "ethtool_stats_dir") {
        c.ethtool_stats_dir = kv.second.as<std::string>();
      } else if (k == "dcb_dir") {
        c.dcb_dir = kv.second.as<std::string>();
      } else {
        return Error{"roce: unknown key '" + k + "'"};
      }
    }
  } catch (const YAML::Exception& ex) {
    return Error{std::string("roce: ") + ex.what()};
  }
  return c;
}

}  // namespace

std::unique_ptr<Collector> MakeRoceCollector(RoceSources sources) {
  if (!sources.ethtool) sources.ethtool = MakeIoctlEthtoolStats();
  if (!sources.dcb) sources.dcb = MakeRtnetlinkDcbSource();
  return std::make_unique<RoceCollector>(std::move(sources));
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
  for (const Family* f : kAllFamilies) {
    s.metrics.push_back({f->name, f->type, f->labels, f->help});
  }
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
    return MakeRoceCollector(std::move(src));
  };
  return s;
}

}  // namespace rnic
