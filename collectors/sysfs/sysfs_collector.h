// The sysfs collector: RDMA devices and ports from /sys/class/infiniband.
//
// Families: rnic_device_info, rnic_port_info, rnic_port_state,
// rnic_port_physical_state, rnic_port_rate_bytes_per_second, rnic_port_lid,
// the PMA port counters (rnic_port_*_total, data in bytes),
// rnic_port_pma_saturated, the driver hw counters (rnic_hw_<name>_total,
// device-level ones without a port label) and
// rnic_hw_counters_lifespan_seconds. See MakeSysfsCollectorSpec() for the
// full list.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/collector.h"
#include "collectors/collector_spec.h"
#include "collectors/common/counter_tracker.h"
#include "collectors/sysfs/device_filter.h"
#include "collectors/sysfs/sysfs_source.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeSysfsCollectorSpec();

namespace sysfs {

struct CollectorOptions {
  DeviceFilter devices;                 // include/exclude by name
  std::shared_ptr<SharedFacts> shared;  // may be null: no netlink collector
};

class SysfsCollector final : public Collector {
 public:
  // Without `model` the collector keeps a host model of its own (tests).
  SysfsCollector(std::string sysfs_root, CollectorOptions options,
                 ReadFileFn read = nullptr,
                 std::shared_ptr<host::HostModel> model = nullptr);

  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

  // Whether a device name passes include/exclude.
  [[nodiscard]] bool Accepts(std::string_view device) const;

 private:
  // Per counter file, aligned with CounterDir::files; worked out when the
  // device instance appears, so a scrape only reads values.
  struct FileMeta {
    const FamilyDesc* family = nullptr;
    bool exported = true;
    bool gauge = false;
    int width = 64;                // wrap (hw) or saturation (PMA) width
    double multiplier = 1;         // 4 for PMA data counters
    WrapState wrap;                // hw counters narrower than 64 bits
    LabelSetPtr saturated_labels;  // device, port, counter (PMA)
  };
  struct DirMeta {
    std::vector<FileMeta> files;
  };
  struct PortMeta {
    DirMeta counters, counters_ext, hw;
    LabelSetPtr info_labels;  // device, port, link_layer, netdev
  };
  struct DeviceMeta {
    std::uint64_t instance = 0;
    const host::Device* model = nullptr;
    LabelSetPtr info_labels;
    DirMeta hw;
    std::vector<PortMeta> ports;
  };

  DeviceMeta BuildMeta(const DeviceSnapshot& dev);
  void BuildHwMeta(const DeviceSnapshot& dev, const CounterDir& dir,
                   DirMeta& meta);
  void BuildPmaMeta(const PortSnapshot& port, PortMeta& meta);
  static void LabelMeta(const DeviceSnapshot& dev, DeviceMeta& meta);
  void EmitDevice(const DeviceSnapshot& dev, DeviceMeta& meta, bool port_state,
                  bool hw_counters, MetricSet& out);
  void EmitHw(const CounterDir& dir, DirMeta& meta, const LabelSetPtr& base,
              MetricSet& out);
  void EmitPma(const CounterDir& dir, const DirMeta& meta,
               const LabelSetPtr& base, MetricSet& out);

  SysfsSource source_;
  CollectorOptions options_;
  std::unordered_map<std::string, DeviceMeta> meta_;
};

}  // namespace sysfs
}  // namespace rnic
