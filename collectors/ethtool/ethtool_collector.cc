#include "collectors/ethtool/ethtool_collector.h"

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <spdlog/common.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "collectors/collector.h"
#include "collectors/ethtool/ethtool_families.h"
#include "collectors/nl/kernel_transport.h"

namespace rnic::ethtool {
namespace {

namespace f = families;

constexpr std::chrono::milliseconds kNetlinkTimeout{1000};

void AddFlags(MetricSet& out, const LabelSetPtr& labels,
              std::string_view quantity, std::string_view lane,
              const optics::Flags& fl) {
  const std::pair<std::string_view, bool> levels[] = {
      {"high_alarm", fl.high_alarm},
      {"low_alarm", fl.low_alarm},
      {"high_warning", fl.high_warning},
      {"low_warning", fl.low_warning}};
  for (const auto& [level, set] : levels) {
    out.Add(f::kOpticFlag,
            labels->With(
                {{"quantity", quantity}, {"level", level}, {"lane", lane}}),
            set ? 1 : 0);
  }
}

void AddThresholds(MetricSet& out, const LabelSetPtr& labels,
                   const FamilyDesc& family, const optics::Thresholds& t) {
  out.Add(family, labels->With({{"level", "high_alarm"}}), t.high_alarm);
  out.Add(family, labels->With({{"level", "low_alarm"}}), t.low_alarm);
  out.Add(family, labels->With({{"level", "high_warning"}}), t.high_warning);
  out.Add(family, labels->With({{"level", "low_warning"}}), t.low_warning);
}

}  // namespace

EthtoolCollector::EthtoolCollector(Sources sources,
                                   std::shared_ptr<host::HostModel> model)
    : model_(std::move(model),
             host::HostModel::Options{sources.sysfs, nullptr}),
      transport_(std::move(sources.transport)),
      module_faults_(std::move(sources.module_faults)) {
  if (transport_) {
    auto c = EthtoolNetlink::Open(*transport_);
    if (c) {
      client_.emplace(std::move(*c));
    } else {
      log_.Log(spdlog::level::warn, "family",
               "no ethtool generic netlink (Linux >= 5.6): no FEC or "
               "statistics series",
               c.error());
    }
  }
  if (sources.eeprom) {
    poller_ = std::make_unique<optics::OpticsPoller>(std::move(sources.eeprom),
                                                     sources.optics_interval,
                                                     std::move(sources.now));
    if (sources.start_poller) poller_->Start();
  }
}

const FamilyDesc* EthtoolCollector::StatFamily(std::uint32_t group,
                                               std::uint32_t id) {
  auto [it, inserted] = stat_families_.try_emplace({group, id}, nullptr);
  if (inserted) {
    const StatName name = StdStatName(group, id);
    if (!name.metric.empty()) {
      it->second = &InternFamily(
          "rnic_ethtool_" + std::string(GroupName(group)) + "_" +
              std::string(name.metric) + "_total",
          prometheus::MetricType::Counter, f::kStdStat.labels,
          std::string(name.ieee) + " (ethtool netlink statistics group " +
              std::string(GroupName(group)) + ")");
    }
  }
  return it->second;
}

namespace {

// What a driver does not implement stays so until the netdev is registered
// again (ENOTSUPP, 524, is the kernel-internal spelling some drivers leak).
bool IsUnsupported(const Error& e) {
  return e.errno_value == EOPNOTSUPP || e.errno_value == 524;
}

}  // namespace

void EthtoolCollector::MarkUnsupported(const std::string& key) {
  if (unsupported_.empty()) {
    unsupported_until_ = CoarseNow() + kRecheckUnsupported;
  }
  unsupported_.insert(key);
}

void EthtoolCollector::CollectFec(const std::string& netdev,
                                  const LabelSetPtr& labels, MetricSet& out) {
  const std::string key = "fec/" + netdev;
  if (unsupported_.contains(key)) return;
  auto fec = client_->Fec(netdev);
  if (!fec) {
    if (IsUnsupported(fec.error())) MarkUnsupported(key);
    log_.Log(spdlog::level::info, key,
             "FEC unavailable: no rnic_fec_* series for this netdev",
             fec.error());
    return;
  }
  log_.Clear(key);
  if (!fec->active.empty()) {
    out.Add(f::kFecActive, labels->With({{"mode", fec->active}}), 1);
  }
  auto emit = [&](const std::vector<std::uint64_t>& v, const FamilyDesc& total,
                  const FamilyDesc* lane) {
    if (v.empty()) return;
    out.Add(total, labels, static_cast<double>(v[0]));
    if (lane == nullptr) return;
    for (std::size_t i = 1; i < v.size(); ++i) {
      out.Add(*lane, labels->With({{"lane", std::to_string(i - 1)}}),
              static_cast<double>(v[i]));
    }
  };
  emit(fec->corrected, f::kFecCorrected, &f::kFecLaneCorrected);
  emit(fec->uncorrectable, f::kFecUncorrectable, &f::kFecLaneUncorrectable);
  emit(fec->corrected_bits, f::kFecCorrectedBits, nullptr);
}

void EthtoolCollector::CollectStats(const std::string& netdev,
                                    const LabelSetPtr& labels, MetricSet& out) {
  const std::string key = "stats/" + netdev;
  if (unsupported_.contains(key)) return;
  auto stats = client_->Stats(netdev);
  if (!stats) {
    if (IsUnsupported(stats.error())) MarkUnsupported(key);
    log_.Log(spdlog::level::info, key,
             "standard statistics unavailable: no rnic_ethtool_* series for "
             "this netdev",
             stats.error());
    return;
  }
  log_.Clear(key);
  if (stats->stats.empty() && stats->hist.empty() && stats->bad_buckets == 0) {
    // The driver fills no standard group (dummy, virtio-net): asked again
    // when what is unsupported is (the model changes, or 5 minutes pass).
    MarkUnsupported(key);
    return;
  }
  for (const StdStat& s : stats->stats) {
    // The kernel leaves counters the driver does not fill out of the reply.
    if (const FamilyDesc* fam = StatFamily(s.group, s.id)) {
      out.Add(*fam, labels, static_cast<double>(s.value));
    }
  }
  EmitHistogram(netdev, *stats, labels, out);
}

void EthtoolCollector::EmitHistogram(const std::string& netdev,
                                     const StatsReply& reply,
                                     const LabelSetPtr& labels,
                                     MetricSet& out) {
  std::size_t bad = reply.bad_buckets;
  // A bucket named twice (a malformed reply) would be a duplicate series:
  // the first one is kept. (A driver defines a handful of buckets.)
  hist_seen_.clear();
  for (const HistBucket& b : reply.hist) {
    const auto id = std::make_tuple(b.tx, b.low, b.high);
    if (b.group != ETHTOOL_STATS_RMON ||
        std::find(hist_seen_.begin(), hist_seen_.end(), id) !=
            hist_seen_.end()) {
      ++bad;
      continue;
    }
    hist_seen_.push_back(id);
    char low[12];
    char high[12];
    const std::string_view low_v(
        low, std::to_chars(low, low + sizeof low, b.low).ptr - low);
    const std::string_view high_v =
        b.high == 0
            ? std::string_view("+Inf")
            : std::string_view(
                  high,
                  std::to_chars(high, high + sizeof high, b.high).ptr - high);
    hist_pairs_.clear();
    for (const Label& l : labels->labels()) {
      hist_pairs_.emplace_back(l.name, l.value);
    }
    hist_pairs_.emplace_back("direction", b.tx ? "tx" : "rx");
    hist_pairs_.emplace_back("low", low_v);
    hist_pairs_.emplace_back("high", high_v);
    out.Add(f::kRmonFrameSize, hist_labels_.Get(hist_pairs_),
            static_cast<double>(b.value));
  }
  hist_key_.assign("hist/");
  hist_key_ += netdev;
  const std::string& key = hist_key_;
  if (bad == 0) {
    log_.Clear(key);
    return;
  }
  log_.Log(spdlog::level::warn, key,
           "malformed rmon histogram buckets left out of "
           "rnic_ethtool_rmon_frame_size_packets_total",
           Error{std::to_string(bad) + " bucket(s)", EBADMSG});
}

void EthtoolCollector::EmitOptics(const optics::Reading& r,
                                  const LabelSetPtr& labels, MetricSet& out) {
  const optics::Diagnostics& d = r.diag;
  out.Add(f::kOpticInfo,
          labels->With({{"type", d.type},
                        {"spec", optics::SpecName(d.spec)},
                        {"vendor", d.vendor},
                        {"part_number", d.part_number},
                        {"revision", d.revision},
                        {"serial", d.serial}}),
          1);
  out.Add(f::kOpticReadTime, labels,
          std::chrono::duration<double>(r.read_at.time_since_epoch()).count());
  // An SFP without digital diagnostics: its identity only.
  if (!d.monitors) return;
  out.Add(f::kOpticTemperature, labels, d.temperature_celsius);
  out.Add(f::kOpticVoltage, labels, d.supply_voltage_volts);
  AddFlags(out, labels, "temperature", "", d.temperature_flags);
  AddFlags(out, labels, "supply_voltage", "", d.supply_voltage_flags);
  if (d.thresholds) {
    AddThresholds(out, labels, f::kOpticTemperatureThreshold,
                  d.thresholds->temperature);
    AddThresholds(out, labels, f::kOpticVoltageThreshold,
                  d.thresholds->supply_voltage);
    AddThresholds(out, labels, f::kOpticTxBiasThreshold, d.thresholds->tx_bias);
    AddThresholds(out, labels, f::kOpticTxPowerThreshold,
                  d.thresholds->tx_power);
    AddThresholds(out, labels, f::kOpticRxPowerThreshold,
                  d.thresholds->rx_power);
  }
  for (std::size_t i = 0; i < d.lanes.size(); ++i) {
    const optics::Lane& l = d.lanes[i];
    const std::string lane = std::to_string(i + 1);
    const LabelSetPtr ll = labels->With({{"lane", lane}});
    if (l.tx_bias_amperes) out.Add(f::kOpticTxBias, ll, *l.tx_bias_amperes);
    if (l.tx_power_watts) out.Add(f::kOpticTxPower, ll, *l.tx_power_watts);
    if (l.rx_power_watts) out.Add(f::kOpticRxPower, ll, *l.rx_power_watts);
    AddFlags(out, labels, "tx_bias", lane, l.tx_bias_flags);
    AddFlags(out, labels, "tx_power", lane, l.tx_power_flags);
    AddFlags(out, labels, "rx_power", lane, l.rx_power_flags);
  }
}

Status EthtoolCollector::Collect(const ScrapeContext& ctx, MetricSet& out) {
  const auto snap = model_.Get();
  // Each netdev once (ports of one netdev share its link and module).
  if (ports_gate_.Changed(*snap) || ports_.empty()) {
    // Label sets are built when the model changes, not per scrape, so the
    // rendered optics below stay valid across scrapes.
    ports_.clear();
    unsupported_.clear();
    std::set<std::string> seen;
    for (const auto& dev : snap->devices) {
      for (const host::Port& p : dev->ports) {
        if (!p.ethernet() || p.netdev.empty() || !p.netdev_visible ||
            !seen.insert(p.netdev).second) {
          continue;
        }
        ports_.emplace_back(p.netdev, p.labels->With({{"netdev", p.netdev}}));
      }
    }
    netdevs_.assign(seen.begin(), seen.end());
  }
  if (!unsupported_.empty() && CoarseNow() >= unsupported_until_) {
    unsupported_.clear();
  }
  std::shared_ptr<const optics::Cache> cache;
  if (poller_) {
    poller_->SetNetdevs(netdevs_);
    cache = poller_->Snapshot();
    if (module_faults_ && cache != published_) {
      PublishFaults(*cache);
      published_ = cache;
    }
  }
  std::map<std::string, Rendered, std::less<>> rendered;
  for (const auto& [netdev, labels] : ports_) {
    if (client_ && !ctx.Expired()) {
      CollectFec(netdev, labels, out);
      CollectStats(netdev, labels, out);
    }
    if (!cache) continue;
    auto it = cache->find(netdev);
    if (it == cache->end()) continue;
    // A reading is rendered once; scrapes copy the rendered samples.
    auto old = rendered_.find(netdev);
    Rendered r;
    if (old != rendered_.end() && old->second.read_at == it->second.read_at &&
        old->second.labels == labels) {
      r = std::move(old->second);
    } else {
      r.read_at = it->second.read_at;
      r.labels = labels;
      EmitOptics(it->second, labels, r.set);
    }
    MetricSet copy = r.set;
    out.Merge(std::move(copy));
    rendered.emplace(netdev, std::move(r));
  }
  rendered_ = std::move(rendered);
  hist_labels_.Sweep();
  return Status::Ok();
}

void EthtoolCollector::PublishFaults(const optics::Cache& cache) {
  ModuleFaultMap faults;
  for (const auto& [netdev, reading] : cache) {
    auto& v = faults[netdev];
    for (std::size_t i = 0; i < reading.diag.lanes.size(); ++i) {
      const optics::LaneFaults& f = reading.diag.lanes[i].faults;
      const int lane = static_cast<int>(i) + 1;
      if (f.tx_fault) v.push_back({lane, "tx_fault"});
      if (f.tx_los) v.push_back({lane, "tx_los"});
      if (f.rx_los) v.push_back({lane, "rx_los"});
      if (f.tx_cdr_lol) v.push_back({lane, "tx_cdr_lol"});
      if (f.rx_cdr_lol) v.push_back({lane, "rx_cdr_lol"});
    }
  }
  module_faults_->Publish(std::move(faults));
}

Result<optics::EepromReadFn> KernelEepromReader() {
  auto t = nl::KernelTransport::Open(NETLINK_GENERIC, kNetlinkTimeout);
  if (!t) return t.error();
  // The transport lives as long as the read function (the poller's).
  std::shared_ptr<nl::NetlinkTransport> transport = std::move(*t);
  auto client = EthtoolNetlink::Open(*transport);
  if (!client) return client.error();
  auto shared = std::make_shared<EthtoolNetlink>(std::move(*client));
  return optics::EepromReadFn(
      [transport, shared](std::string_view netdev, const EepromWindow& w) {
        return shared->ReadEeprom(netdev, w);
      });
}

}  // namespace rnic::ethtool

namespace rnic {

CollectorSpec MakeEthtoolCollectorSpec() {
  namespace f = ethtool::families;
  CollectorSpec spec;
  spec.name = "ethtool";
  spec.help =
      "FEC (active mode, corrected/uncorrectable blocks per lane), the "
      "standard eth-phy/eth-mac/eth-ctrl/rmon statistics and module (optics) "
      "diagnostics of RDMA netdevs, over ethtool generic netlink";
  spec.default_enabled = true;
  spec.options = {
      BoolOption("optics",
                 "Read module EEPROM diagnostics (SFF-8636, CMIS, SFF-8472) in "
                 "the background",
                 true),
      DurationOption("optics-interval",
                     "Read each module's EEPROM at most this often; scrapes "
                     "serve the last reading",
                     "60s", std::chrono::seconds(1), std::chrono::hours(24)),
  };
  spec.families = {&f::kFecActive,
                   &f::kFecCorrected,
                   &f::kFecUncorrectable,
                   &f::kFecCorrectedBits,
                   &f::kFecLaneCorrected,
                   &f::kFecLaneUncorrectable,
                   &f::kStdStat,
                   &f::kRmonFrameSize,
                   &f::kOpticInfo,
                   &f::kOpticTemperature,
                   &f::kOpticVoltage,
                   &f::kOpticTxBias,
                   &f::kOpticTxPower,
                   &f::kOpticRxPower,
                   &f::kOpticTemperatureThreshold,
                   &f::kOpticVoltageThreshold,
                   &f::kOpticTxBiasThreshold,
                   &f::kOpticTxPowerThreshold,
                   &f::kOpticRxPowerThreshold,
                   &f::kOpticFlag,
                   &f::kOpticReadTime};
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    // In range: checked with the flags (DurationOption).
    const auto interval = args.Duration("optics-interval");
    ethtool::Sources s;
    s.sysfs = args.paths.sysfs;
    s.optics_interval = interval;
    auto t =
        nl::KernelTransport::Open(NETLINK_GENERIC, ethtool::kNetlinkTimeout);
    if (t) {
      s.transport = std::move(*t);
    } else {
      LogEvent(spdlog::level::warn, "ethtool",
               "no generic netlink socket: ethtool collector exports nothing",
               {{"err", t.error().ToString()}});
    }
    if (args.shared) s.module_faults = args.shared->module_faults;
    if (args.Bool("optics")) {
      auto reader = ethtool::KernelEepromReader();
      if (reader) {
        s.eeprom = std::move(*reader);
      } else {
        LogEvent(spdlog::level::warn, "ethtool",
                 "module EEPROM reads unavailable: no rnic_optic_* series",
                 {{"err", reader.error().ToString()}});
      }
    }
    return std::unique_ptr<Collector>(
        std::make_unique<ethtool::EthtoolCollector>(
            std::move(s), args.shared ? args.shared->host : nullptr));
  };
  return spec;
}

}  // namespace rnic
