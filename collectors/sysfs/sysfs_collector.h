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
  SysfsCollector(std::string sysfs_root, CollectorOptions options,
                 ReadFileFn read = nullptr);

  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

  // Whether a device name passes include/exclude.
  [[nodiscard]] bool Accepts(std::string_view device) const;

 private:
  // A family whose samples this collector appends by index (no name lookup
  // per sample).
  struct Slot {
    std::string name;
    std::string help;
    prometheus::MetricType type;
    std::vector<prometheus::ClientMetric> metrics;
  };
  // Per counter file, aligned with CounterDir::files.
  struct FileMeta {
    std::uint32_t slot = 0;
    bool exported = true;
    bool gauge = false;
    int width = 64;         // wrap (hw) or saturation (PMA) width
    double multiplier = 1;  // 4 for PMA data counters
    WrapState wrap;         // hw counters narrower than 64 bits
  };
  struct DirMeta {
    std::vector<FileMeta> files;
  };
  struct PortMeta {
    DirMeta counters, counters_ext, hw;
    std::string port_label;
  };
  struct DeviceMeta {
    std::uint64_t instance = 0;
    DirMeta hw;
    std::vector<PortMeta> ports;
  };

  std::uint32_t SlotFor(std::string_view name, std::string_view help,
                        prometheus::MetricType type);
  void Add(std::uint32_t slot, Labels labels, double value);
  DeviceMeta BuildMeta(const DeviceSnapshot& dev);
  void BuildHwMeta(const DeviceSnapshot& dev, const CounterDir& dir,
                   DirMeta& meta);
  void BuildPmaMeta(const PortSnapshot& port, PortMeta& meta);
  void EmitDevice(const DeviceSnapshot& dev, DeviceMeta& meta, bool port_state,
                  bool hw_counters);
  void EmitHw(const CounterDir& dir, DirMeta& meta, const Labels& base);
  void EmitPma(const CounterDir& dir, const DirMeta& meta, const Labels& base);

  SysfsSource source_;
  CollectorOptions options_;
  std::vector<Slot> slots_;
  std::unordered_map<std::string, std::uint32_t> slot_index_;
  std::unordered_map<std::string, DeviceMeta> meta_;
  std::uint32_t device_info_, port_info_, port_state_, port_phys_state_,
      port_rate_, port_lid_, saturated_, lifespan_;
};

}  // namespace sysfs
}  // namespace rnic
