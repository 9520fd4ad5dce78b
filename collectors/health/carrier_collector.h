// carrier collector: link stability of the netdev of every RDMA port that
// has one (RoCE, iWARP, IPoIB-less Ethernet): carrier changes (flaps) and
// carrier up/down counts from /sys/class/net/<netdev>, where the kernel has
// them (carrier_up_count and carrier_down_count since Linux 4.16).
#pragma once

#include <memory>
#include <string>

#include "collectors/collector_spec.h"

namespace rnic {

// Without `model` the collector keeps a host model of its own on `sysfs`.
[[nodiscard]] std::unique_ptr<Collector> MakeCarrierCollector(
    std::string sysfs, std::shared_ptr<host::HostModel> model = nullptr);

[[nodiscard]] CollectorSpec MakeCarrierCollectorSpec();

}  // namespace rnic
