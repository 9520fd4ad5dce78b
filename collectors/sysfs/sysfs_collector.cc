#include "collectors/sysfs/sysfs_collector.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <numeric>
#include <unordered_set>
#include <utility>

#include "collectors/common/log_once.h"
#include "collectors/metrics/hw_counters.h"
#include "collectors/metrics/port_families.h"
#include "collectors/sysfs/pma_counters.h"
#include "collectors/sysfs/sysfs_families.h"

namespace rnic {
namespace sysfs {

namespace fam = families;
using rnic::families::kPortPhysicalState;
using rnic::families::kPortState;

SysfsCollector::SysfsCollector(std::string sysfs_root, CollectorOptions options,
                               ReadFileFn read,
                               std::shared_ptr<host::HostModel> model)
    : source_(std::move(sysfs_root), std::move(read), std::move(model)),
      options_(std::move(options)) {}

bool SysfsCollector::Accepts(std::string_view device) const {
  return options_.devices.Accepts(device);
}

void SysfsCollector::BuildHwMeta(const DeviceSnapshot& dev,
                                 const CounterDir& dir, DirMeta& meta) {
  meta.files.clear();
  meta.files.resize(dir.files.size());
  std::unordered_set<const FamilyDesc*> seen;
  for (std::size_t i = 0; i < dir.files.size(); ++i) {
    const std::string& name = dir.files[i].name;
    FileMeta& fm = meta.files[i];
    const HwCounterMeta hw = HwCounterFor(name);
    if (!seen.insert(hw.family).second) {
      // Two kernel names that differ only in characters a metric name
      // cannot hold: export the first, say so once.
      fm.exported = false;
      LogEvent(spdlog::level::warn, "sysfs",
               "hw counter maps to the metric of another counter of the same "
               "directory; not exported",
               {{"device", dev.name},
                {"counter", name},
                {"metric", hw.family->name}});
      continue;
    }
    fm.family = hw.family;
    fm.gauge = hw.gauge;
    fm.width = hw.width;
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
      fm.family = &PmaFamily(*info);
      fm.multiplier = info->multiplier;
      from_ext.push_back(info->quantity);
    } else {
      fm.family =
          &InternFamily(UnknownPmaFamily(name), prometheus::MetricType::Counter,
                        fam::kUnknownPma.labels, fam::kUnknownPma.help);
    }
  }
  meta.counters.files.assign(port.counters.files.size(), FileMeta{});
  for (std::size_t i = 0; i < port.counters.files.size(); ++i) {
    const std::string& name = port.counters.files[i].name;
    FileMeta& fm = meta.counters.files[i];
    const PmaCounterInfo* info = FindPmaCounter(name, /*ext_dir=*/false);
    if (!info) {
      fm.family =
          &InternFamily(UnknownPmaFamily(name), prometheus::MetricType::Counter,
                        fam::kUnknownPma.labels, fam::kUnknownPma.help);
      fm.width = 64;
      continue;
    }
    fm.family = &PmaFamily(*info);
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
    if (fm.width < 64) {
      fm.saturated_labels = port.model->labels->With({{"counter", name}});
    }
  }
}

void SysfsCollector::LabelMeta(const DeviceSnapshot& dev, DeviceMeta& meta) {
  const host::Device& d = *dev.model;
  meta.model = &d;
  meta.info_labels = LabelSet::Make({{"device", d.name},
                                     {"node_type", d.node_type},
                                     {"firmware_version", d.fw_ver},
                                     {"board_id", d.board_id},
                                     {"hca_type", d.hca_type},
                                     {"node_guid", d.node_guid},
                                     {"sys_image_guid", d.sys_image_guid},
                                     {"driver", d.driver},
                                     {"pci_address", d.pci_address},
                                     {"numa_node", d.numa_node}});
  for (std::size_t p = 0; p < dev.ports.size() && p < meta.ports.size(); ++p) {
    const host::Port& mp = *dev.ports[p].model;
    meta.ports[p].info_labels =
        mp.labels->With({{"link_layer", mp.link_layer}, {"netdev", mp.netdev}});
  }
}

SysfsCollector::DeviceMeta SysfsCollector::BuildMeta(
    const DeviceSnapshot& dev) {
  DeviceMeta meta;
  meta.instance = dev.instance;
  BuildHwMeta(dev, dev.hw_counters, meta.hw);
  meta.ports.resize(dev.ports.size());
  for (std::size_t p = 0; p < dev.ports.size(); ++p) {
    BuildPmaMeta(dev.ports[p], meta.ports[p]);
    BuildHwMeta(dev, dev.ports[p].hw_counters, meta.ports[p].hw);
  }
  LabelMeta(dev, meta);
  return meta;
}

void SysfsCollector::EmitHw(const CounterDir& dir, DirMeta& meta,
                            const LabelSetPtr& base, MetricSet& out) {
  if (dir.lifespan_ms) {
    // Milliseconds to seconds as a double: 10 ms is 0.01, not 0.
    out.Add(fam::kHwCountersLifespan, base,
            static_cast<double>(*dir.lifespan_ms) / 1000.0);
  }
  for (std::size_t i = 0; i < dir.files.size() && i < meta.files.size(); ++i) {
    const CounterFile& f = dir.files[i];
    FileMeta& fm = meta.files[i];
    if (!f.has_value || !fm.exported) continue;
    double v = static_cast<double>(f.value);
    if (!fm.gauge && fm.width < 64) {
      v = static_cast<double>(ExtendCounter(fm.wrap, f.value, fm.width).value);
    }
    out.Add(*fm.family, base, v);
  }
}

void SysfsCollector::EmitPma(const CounterDir& dir, const DirMeta& meta,
                             const LabelSetPtr& base, MetricSet& out) {
  for (std::size_t i = 0; i < dir.files.size() && i < meta.files.size(); ++i) {
    const CounterFile& f = dir.files[i];
    const FileMeta& fm = meta.files[i];
    if (!f.has_value || !fm.exported) continue;
    out.Add(*fm.family, base, static_cast<double>(f.value) * fm.multiplier);
    if (fm.saturated_labels && f.value <= CounterMax(fm.width)) {
      out.Add(fam::kPmaSaturated, fm.saturated_labels,
              IsSaturated(f.value, fm.width) ? 1 : 0);
    }
  }
}

void SysfsCollector::EmitDevice(const DeviceSnapshot& dev, DeviceMeta& meta,
                                bool port_state, bool hw_counters,
                                MetricSet& out) {
  out.Add(fam::kDeviceInfo, meta.info_labels, 1);
  // Device-level counters always come from here: netlink STAT_GET has none.
  EmitHw(dev.hw_counters, meta.hw, dev.model->labels, out);

  for (std::size_t p = 0; p < dev.ports.size() && p < meta.ports.size(); ++p) {
    const PortSnapshot& port = dev.ports[p];
    PortMeta& pm = meta.ports[p];
    const LabelSetPtr& labels = port.model->labels;

    out.Add(fam::kPortInfo, pm.info_labels, 1);
    if (port_state) {
      if (port.state) out.Add(kPortState, labels, *port.state);
      if (port.phys_state)
        out.Add(kPortPhysicalState, labels, *port.phys_state);
    }
    if (port.rate_bytes_per_second) {
      out.Add(fam::kPortRate, labels, *port.rate_bytes_per_second);
    }
    if (port.lid)
      out.Add(fam::kPortLid, labels, static_cast<double>(*port.lid));

    EmitPma(port.counters, pm.counters, labels, out);
    EmitPma(port.counters_ext, pm.counters_ext, labels, out);
    if (hw_counters) {
      EmitHw(port.hw_counters, pm.hw, labels, out);
    } else if (port.hw_counters.lifespan_ms) {
      out.Add(fam::kHwCountersLifespan, labels,
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
    } else if (it->second.model != dev->model.get()) {
      LabelMeta(*dev, it->second);  // same device, facts looked at again
    }
    EmitDevice(*dev, it->second, ro.port_state, ro.hw_counters, out);
  }
  std::erase_if(meta_, [&](const auto& kv) {
    return !present.contains(std::string_view(kv.first));
  });
  // Families in name order, as before the host model: stable output.
  out.SortByName();
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
      RegexOption("device-include",
                  "Regular expression (ECMAScript, unanchored) of RDMA device "
                  "names to read; others are not touched. Empty: all."),
      RegexOption("device-exclude",
                  "Regular expression (ECMAScript, unanchored) of RDMA device "
                  "names not to read, applied after device-include. Empty: "
                  "none."),
  };
  namespace fam = sysfs::families;
  using rnic::families::kPortPhysicalState;
  using rnic::families::kPortState;
  spec.families = {&fam::kDeviceInfo,
                   &fam::kPortInfo,
                   &kPortState,
                   &kPortPhysicalState,
                   &fam::kPortRate,
                   &fam::kPortLid,
                   &fam::kPmaSaturated,
                   &fam::kHwCountersLifespan,
                   &rnic::families::kHwCounter,
                   &rnic::families::kHwGauge,
                   &fam::kUnknownPma};
  // The known PMA families, once each (counters_ext/ maps onto the same).
  std::unordered_set<std::string_view> done;
  for (const sysfs::PmaCounterInfo& info : sysfs::AllPmaCounters()) {
    if (done.insert(info.family).second) {
      spec.families.push_back(&sysfs::PmaFamily(info));
    }
  }
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    sysfs::CollectorOptions opts;
    opts.devices = sysfs::DeviceFilter(args.Regex("device-include"),
                                       args.Regex("device-exclude"));
    opts.shared = args.shared;
    std::unique_ptr<Collector> c = std::make_unique<sysfs::SysfsCollector>(
        args.paths.sysfs, std::move(opts), nullptr,
        args.shared ? args.shared->host : nullptr);
    return c;
  };
  return spec;
}

}  // namespace rnic
