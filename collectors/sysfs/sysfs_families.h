// Families of the sysfs collector, declared once (see
// collectors/metrics/family.h). Port state and the driver hw counters are
// shared with netlink_stat (collectors/metrics/port_families.h); the PMA port
// counters are declared in the PMA table (pma_counters.h).
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::sysfs::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kDeviceInfo{
    "rnic_device_info", MetricType::Gauge,
    "device,node_type,firmware_version,board_id,hca_type,node_guid,"
    "sys_image_guid,driver,pci_address,numa_node",
    "RDMA device metadata from /sys/class/infiniband/<device>; value is "
    "always 1."};
inline constexpr FamilyDesc kPortInfo{
    "rnic_port_info", MetricType::Gauge, "device,port,link_layer,netdev",
    "RDMA port metadata: link layer (InfiniBand, Ethernet for RoCE and "
    "iWARP, Unknown) and the network device; value is always 1."};
inline constexpr FamilyDesc kPortRate{
    "rnic_port_rate_bytes_per_second", MetricType::Gauge, "device,port",
    "Port data rate in bytes per second (ports/N/rate, e.g. \"100 Gb/sec "
    "(4X EDR)\" = 12.5e9)."};
inline constexpr FamilyDesc kPortLid{
    "rnic_port_lid", MetricType::Gauge, "device,port",
    "InfiniBand local identifier of the port (ports/N/lid); absent when "
    "zero or when the link layer has none."};
inline constexpr FamilyDesc kPmaSaturated{
    "rnic_port_pma_saturated", MetricType::Gauge, "device,port,counter",
    "1 when a saturating PMA port counter sits at its maximum value (it "
    "stopped counting until reset, e.g. with perfquery -R), else 0. Label "
    "counter is the kernel file name in ports/N/counters."};
inline constexpr FamilyDesc kHwCountersLifespan{
    "rnic_hw_counters_lifespan_seconds", MetricType::Gauge, "device,port",
    "How long the kernel caches hw_counters values (sysfs "
    "hw_counters/lifespan, converted from milliseconds to seconds). "
    "Device-level hw_counters have no port label."};
inline constexpr FamilyDesc kUnknownPma{
    "rnic_port_pma_<counter>_total", MetricType::Counter, "device,port",
    "PMA port counter (sysfs ports/N/counters) that rnic_exporter does not "
    "know; raw value, kernel name in the metric name."};

}  // namespace rnic::sysfs::families
