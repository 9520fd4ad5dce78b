// roce collector: answers "is the fabric congested at L2?" (per-priority PFC
// pause frames and durations, pause storms, buffer/congestion discards, ECN
// marks, PCIe back-pressure; from the netdev's ethtool statistics) and "is
// this host tuned the way RoCE needs?" (MTU, PFC-enabled priorities and
// DCB facts over dcbnl, RoCE ECN switches, NIC NUMA node and IRQ placement)
// for every RDMA port whose link layer is Ethernet.
#pragma once

#include <memory>
#include <string>

#include "collectors/collector_spec.h"
#include "collectors/nl/dcb_source.h"
#include "collectors/roce/ethtool_stats.h"

namespace rnic {

struct RoceSources {
  std::string sysfs = "/sys";
  std::string procfs = "/proc";
  std::unique_ptr<EthtoolStatsSource> ethtool;
  std::unique_ptr<DcbSource> dcb;
};

// Without `model` the collector keeps a host model of its own on
// sources.sysfs (tests).
[[nodiscard]] std::unique_ptr<Collector> MakeRoceCollector(
    RoceSources sources, std::shared_ptr<host::HostModel> model = nullptr);

[[nodiscard]] CollectorSpec MakeRoceCollectorSpec();

}  // namespace rnic
