#include "collectors/sysfs/sysfs_collector.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <numeric>
#include <unordered_set>
#include <utility>

#include "collectors/common/hw_counters.h"
#include "collectors/sysfs/pma_counters.h"

namespace rnic {
namespace sysfs {
namespace {

using prometheus::MetricType;

constexpr std::string_view kDeviceInfoHelp =
    "RDMA device metadata from /sys/class/infiniband/<device>; value is "
    "always 1.";
constexpr std::string_view kPortInfoHelp =
    "RDMA port metadata: link layer (InfiniBand, Ethernet for RoCE and "
    "iWARP, Unknown) and the network device; value is always 1.";
constexpr std::string_view kPortStateHelp =
    "Port logical state as the kernel numbers it (ports/N/state): 1 DOWN, "
    "2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.";
constexpr std::string_view kPortPhysStateHelp =
    "Port physical state as the kernel numbers it (ports/N/phys_state): "
    "1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, "
    "6 LinkErrorRecovery, 7 Phy Test.";
constexpr std::string_view kPortRateHelp =
    "Port data rate in bytes per second (ports/N/rate, e.g. \"100 Gb/sec "
    "(4X EDR)\" = 12.5e9).";
constexpr std::string_view kPortLidHelp =
    "InfiniBand local identifier of the port (ports/N/lid); absent when "
    "zero or when the link layer has none.";

Labels DeviceLabels(const std::string& device) {
  Labels l;
  l.reserve(3);
  l.push_back(Label{"device", device});
  return l;
}

Labels PortLabels(const std::string& device, const std::string& port) {
  Labels l;
  l.reserve(3);
  l.push_back(Label{"device", device});
  l.push_back(Label{"port", port});
  return l;
}

}  // namespace

SysfsCollector::SysfsCollector(std::string sysfs_root, CollectorOptions options,
                               ReadFileFn read)
    : source_(std::move(sysfs_root), std::move(read)),
      options_(std::move(options)) {
  device_info_ =
      SlotFor("rnic_device_info", kDeviceInfoHelp, MetricType::Gauge);
  port_info_ = SlotFor("rnic_port_info", kPortInfoHelp, MetricType::Gauge);
  port_state_ = SlotFor("rnic_port_state", kPortStateHelp, MetricType::Gauge);
  port_phys_state_ = SlotFor("rnic_port_physical_state", kPortPhysStateHelp,
                             MetricType::Gauge);
  port_rate_ = SlotFor("rnic_port_rate_bytes_per_second", kPortRateHelp,
                       MetricType::Gauge);
  port_lid_ = SlotFor("rnic_port_lid", kPortLidHelp, MetricType::Gauge);
  saturated_ = SlotFor(kSaturatedFamily, kSaturatedHelp, MetricType::Gauge);
  lifespan_ = SlotFor(kHwCountersLifespanFamily, kHwCountersLifespanHelp,
                      MetricType::Gauge);
}

bool SysfsCollector::Accepts(std::string_view device) const {
  return options_.devices.Accepts(device);
}

std::uint32_t SysfsCollector::SlotFor(std::string_view name,
                                      std::string_view help, MetricType type) {
  auto it = slot_index_.find(std::string(name));
  if (it != slot_index_.end()) return it->second;
  const auto idx = static_cast<std::uint32_t>(slots_.size());
  slots_.push_back(Slot{std::string(name), std::string(help), type, {}});
  slot_index_.emplace(std::string(name), idx);
  return idx;
}

void SysfsCollector::Add(std::uint32_t slot, Labels labels, double value) {
  Slot& s = slots_[slot];
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  if (s.type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  s.metrics.push_back(std::move(m));
}

void SysfsCollector::BuildHwMeta(const DeviceSnapshot& dev,
                                 const CounterDir& dir, DirMeta& meta) {
  meta.files.clear();
  meta.files.resize(dir.files.size());
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < dir.files.size(); ++i) {
    const std::string& name = dir.files[i].name;
    FileMeta& fm = meta.files[i];
    std::string family = HwCounterFamilyName(name);
    if (!seen.insert(family).second) {
      // Two kernel names that differ only in characters a metric name
      // cannot hold: export the first, say so once.
      fm.exported = false;
      spdlog::warn(
          "sysfs: {}: hw counter \"{}\" maps to metric {} like another "
          "counter of the same directory; not exported",
          dev.name, name, family);
      continue;
    }
    fm.gauge = HwCounterKindOf(name) == HwCounterKind::kGauge;
    fm.width = HwCounterWidthBits(name);
    fm.slot = SlotFor(family, HwCounterHelp(name),
                      fm.gauge ? MetricType::Gauge : MetricType::Counter);
  }
}

void SysfsCollector::BuildPmaMeta(const PortSnapshot& port, PortMeta& meta) {
  bool extended_set = false;
  for (const CounterFile& f : port.counters.files) {
    if (f.name == kPmaExtendedMarker) extended_set = true;
  }
  std::vector<PmaQuantity> from_ext;
  meta.counters_ext.files.assign(port.counters_ext.files.size(), FileMeta{});
  for (std::size_t i = 0; i < port.counters_ext.files.size(); ++i) {
    const std::string& name = port.counters_ext.files[i].name;
    FileMeta& fm = meta.counters_ext.files[i];
    fm.width = 64;
    if (const PmaCounterInfo* info = FindPmaCounter(name, /*ext_dir=*/true)) {
      fm.slot = SlotFor(info->family, info->help, MetricType::Counter);
      fm.multiplier = info->multiplier;
      from_ext.push_back(info->quantity);
    } else {
      fm.slot =
          SlotFor(UnknownPmaFamily(name), kUnknownPmaHelp, MetricType::Counter);
    }
  }
  meta.counters.files.assign(port.counters.files.size(), FileMeta{});
  for (std::size_t i = 0; i < port.counters.files.size(); ++i) {
    const std::string& name = port.counters.files[i].name;
    FileMeta& fm = meta.counters.files[i];
    const PmaCounterInfo* info = FindPmaCounter(name, /*ext_dir=*/false);
    if (!info) {
      fm.slot =
          SlotFor(UnknownPmaFamily(name), kUnknownPmaHelp, MetricType::Counter);
      fm.width = 64;
      continue;
    }
    fm.slot = SlotFor(info->family, info->help, MetricType::Counter);
    fm.multiplier = info->multiplier;
    fm.width = info->width;
    if (info->quantity != PmaQuantity::kOther) {
      // The 64-bit counters_ext/ file measures the same thing: use it only.
      if (std::find(from_ext.begin(), from_ext.end(), info->quantity) !=
          from_ext.end()) {
        fm.exported = false;
      }
      if (extended_set) fm.width = 64;
    }
  }
}

SysfsCollector::DeviceMeta SysfsCollector::BuildMeta(
    const DeviceSnapshot& dev) {
  DeviceMeta meta;
  meta.instance = dev.instance;
  BuildHwMeta(dev, dev.hw_counters, meta.hw);
  meta.ports.resize(dev.ports.size());
  for (std::size_t p = 0; p < dev.ports.size(); ++p) {
    meta.ports[p].port_label = std::to_string(dev.ports[p].number);
    BuildPmaMeta(dev.ports[p], meta.ports[p]);
    BuildHwMeta(dev, dev.ports[p].hw_counters, meta.ports[p].hw);
  }
  return meta;
}

void SysfsCollector::EmitHw(const CounterDir& dir, DirMeta& meta,
                            const Labels& base) {
  if (dir.lifespan_ms) {
    // Milliseconds to seconds as a double: 10 ms is 0.01, not 0.
    Add(lifespan_, base, static_cast<double>(*dir.lifespan_ms) / 1000.0);
  }
  for (std::size_t i = 0; i < dir.files.size() && i < meta.files.size(); ++i) {
    const CounterFile& f = dir.files[i];
    FileMeta& fm = meta.files[i];
    if (!f.has_value || !fm.exported) continue;
    double v = static_cast<double>(f.value);
    if (!fm.gauge && fm.width < 64) {
      v = static_cast<double>(ExtendCounter(fm.wrap, f.value, fm.width).value);
    }
    Add(fm.slot, base, v);
  }
}

void SysfsCollector::EmitPma(const CounterDir& dir, const DirMeta& meta,
                             const Labels& base) {
  for (std::size_t i = 0; i < dir.files.size() && i < meta.files.size(); ++i) {
    const CounterFile& f = dir.files[i];
    const FileMeta& fm = meta.files[i];
    if (!f.has_value || !fm.exported) continue;
    Add(fm.slot, base, static_cast<double>(f.value) * fm.multiplier);
    if (fm.width < 64 && f.value <= CounterMax(fm.width)) {
      Labels l = base;
      l.push_back(Label{"counter", f.name});
      Add(saturated_, std::move(l), IsSaturated(f.value, fm.width) ? 1 : 0);
    }
  }
}

void SysfsCollector::EmitDevice(const DeviceSnapshot& dev, DeviceMeta& meta,
                                bool port_state, bool hw_counters) {
  Labels info;
  info.reserve(10);
  info.push_back(Label{"device", dev.name});
  info.push_back(Label{"node_type", dev.node_type});
  info.push_back(Label{"firmware_version", dev.fw_ver});
  info.push_back(Label{"board_id", dev.board_id});
  info.push_back(Label{"hca_type", dev.hca_type});
  info.push_back(Label{"node_guid", dev.node_guid});
  info.push_back(Label{"sys_image_guid", dev.sys_image_guid});
  info.push_back(Label{"driver", dev.driver});
  info.push_back(Label{"pci_address", dev.pci_address});
  info.push_back(Label{"numa_node", dev.numa_node});
  Add(device_info_, std::move(info), 1);

  const Labels dev_labels = DeviceLabels(dev.name);
  // Device-level counters always come from here: netlink STAT_GET has none.
  EmitHw(dev.hw_counters, meta.hw, dev_labels);

  for (std::size_t p = 0; p < dev.ports.size() && p < meta.ports.size(); ++p) {
    const PortSnapshot& port = dev.ports[p];
    PortMeta& pm = meta.ports[p];
    const Labels labels = PortLabels(dev.name, pm.port_label);

    Labels pinfo = labels;
    pinfo.push_back(Label{"link_layer", port.link_layer});
    pinfo.push_back(Label{"netdev", port.netdev});
    Add(port_info_, std::move(pinfo), 1);
    if (port_state) {
      if (port.state) Add(port_state_, labels, *port.state);
      if (port.phys_state) Add(port_phys_state_, labels, *port.phys_state);
    }
    if (port.rate_bytes_per_second) {
      Add(port_rate_, labels, *port.rate_bytes_per_second);
    }
    if (port.lid) Add(port_lid_, labels, static_cast<double>(*port.lid));

    EmitPma(port.counters, pm.counters, labels);
    EmitPma(port.counters_ext, pm.counters_ext, labels);
    if (hw_counters) {
      EmitHw(port.hw_counters, pm.hw, labels);
    } else if (port.hw_counters.lifespan_ms) {
      Add(lifespan_, labels,
          static_cast<double>(*port.hw_counters.lifespan_ms) / 1000.0);
    }
  }
}

Status SysfsCollector::Collect(const ScrapeContext& /*ctx*/, MetricSet& out) {
  // Facts may be set after construction (collector start order), so read
  // them every scrape.
  const bool netlink_state =
      options_.shared && options_.shared->netlink_port_state.load();
  const bool netlink_hw =
      options_.shared && options_.shared->netlink_hw_counters.load();
  ReadOptions ro;
  ro.port_state = !netlink_state;
  ro.hw_counters = !netlink_hw;

  const Status st =
      source_.Read(ro, [this](std::string_view name) { return Accepts(name); });
  if (!st.ok()) return st;

  std::unordered_set<std::string_view> present;
  for (const DeviceSnapshot* dev : source_.devices()) {
    present.insert(dev->name);
    auto it = meta_.find(dev->name);
    if (it == meta_.end() || it->second.instance != dev->instance) {
      // New device or a new instance of it: wrap state starts over.
      it = meta_.insert_or_assign(dev->name, BuildMeta(*dev)).first;
    }
    EmitDevice(*dev, it->second, ro.port_state, ro.hw_counters);
  }
  std::erase_if(meta_, [&](const auto& kv) {
    return !present.contains(std::string_view(kv.first));
  });

  std::vector<std::uint32_t> order(slots_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [this](auto a, auto b) { return slots_[a].name < slots_[b].name; });
  for (std::uint32_t idx : order) {
    Slot& s = slots_[idx];
    if (s.metrics.empty()) continue;
    auto& family = out.Family(s.name, s.help, s.type);
    family.metric.insert(family.metric.end(),
                         std::make_move_iterator(s.metrics.begin()),
                         std::make_move_iterator(s.metrics.end()));
    s.metrics.clear();
  }
  return Status::Ok();
}

}  // namespace sysfs

CollectorSpec MakeSysfsCollectorSpec() {
  CollectorSpec spec;
  spec.name = "sysfs";
  spec.help =
      "RDMA devices and ports from /sys/class/infiniband: device and port "
      "info, port state and rate, IB PMA port counters, driver hw_counters.";
  spec.default_enabled = true;
  spec.options = {
      {"device-include",
       "Regular expression (ECMAScript, unanchored) of RDMA device names to "
       "read; others are not touched. Empty: all.",
       ""},
      {"device-exclude",
       "Regular expression (ECMAScript, unanchored) of RDMA device names not "
       "to read, applied after device-include. Empty: none.",
       ""},
  };
  const auto counter = [](std::string name, std::string labels,
                          std::string help) {
    return MetricDoc{std::move(name), "counter", std::move(labels),
                     std::move(help)};
  };
  const auto gauge = [](std::string name, std::string labels,
                        std::string help) {
    return MetricDoc{std::move(name), "gauge", std::move(labels),
                     std::move(help)};
  };
  spec.metrics = {
      gauge("rnic_device_info",
            "device,node_type,firmware_version,board_id,hca_type,node_guid,"
            "sys_image_guid,driver,pci_address,numa_node",
            std::string(sysfs::kDeviceInfoHelp)),
      gauge("rnic_port_info", "device,port,link_layer,netdev",
            std::string(sysfs::kPortInfoHelp)),
      gauge("rnic_port_state", "device,port",
            std::string(sysfs::kPortStateHelp) +
                " Left to netlink_stat when it reads port state."),
      gauge("rnic_port_physical_state", "device,port",
            std::string(sysfs::kPortPhysStateHelp) +
                " Left to netlink_stat when it reads port state."),
      gauge("rnic_port_rate_bytes_per_second", "device,port",
            std::string(sysfs::kPortRateHelp)),
      gauge("rnic_port_lid", "device,port", std::string(sysfs::kPortLidHelp)),
      gauge(std::string(sysfs::kSaturatedFamily), "device,port,counter",
            std::string(sysfs::kSaturatedHelp)),
      gauge(std::string(kHwCountersLifespanFamily), "device,port",
            std::string(kHwCountersLifespanHelp) +
                " Device-level hw_counters have no port label."),
      counter("rnic_hw_<counter>_total", "device,port",
              "Driver hardware counter from hw_counters/ (kernel name in the "
              "metric name; HELP from a description table). Device-level "
              "counters have no port label. Left to netlink_stat when it "
              "reads statistics."),
      gauge("rnic_hw_<gauge>", "device,port",
            "Driver hw_counters entries that are levels, not counts (bnxt_re "
            "active_* and watermark_*, hfi1 DRIVER_CtxtsOpen)."),
      counter("rnic_port_pma_<counter>_total", "device,port",
              std::string(sysfs::kUnknownPmaHelp)),
  };
  // The known PMA families, once each (counters_ext/ maps onto the same).
  std::unordered_set<std::string_view> done;
  for (const sysfs::PmaCounterInfo& info : sysfs::AllPmaCounters()) {
    if (done.insert(info.family).second) {
      spec.metrics.push_back(counter(std::string(info.family), "device,port",
                                     std::string(info.help)));
    }
  }
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto filter = sysfs::DeviceFilter::Create(args.Option("device-include"),
                                              args.Option("device-exclude"));
    if (!filter.ok()) {
      return Error{"--collector.sysfs." + filter.error().message};
    }
    sysfs::CollectorOptions opts;
    opts.devices = std::move(filter).value();
    opts.shared = args.shared;
    std::unique_ptr<Collector> c = std::make_unique<sysfs::SysfsCollector>(
        args.paths.sysfs, std::move(opts));
    return c;
  };
  return spec;
}

}  // namespace rnic
