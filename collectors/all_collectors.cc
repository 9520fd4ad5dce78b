// The collector table. Order matters: factories run top to bottom, and
// netlink_stat must run before sysfs (see SharedFacts).
#include "collectors/collector_spec.h"
#include "collectors/ethtool/ethtool_collector.h"
#include "collectors/fabric/fabric_collector.h"
#include "collectors/gpu/gpu_collector.h"
#include "collectors/health/carrier_collector.h"
#include "collectors/health/expect_collector.h"
#include "collectors/health/pcie_collector.h"
#include "collectors/health/port_health_collector.h"
#include "collectors/kmsg/kmsg_collector.h"
#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/nl/device_lister.h"
#include "collectors/perf/perf_collector.h"
#include "collectors/probe/probe_collector.h"
#include "collectors/roce/roce_collector.h"
#include "collectors/sysfs/sysfs_collector.h"

namespace rnic {

std::shared_ptr<host::HostModel> MakeHostModel(const Paths& paths) {
  return std::make_shared<host::HostModel>(host::HostModel::Options{
      paths.sysfs, nl::MakeDeviceLister(nl::KernelOpener())});
}

const std::vector<CollectorSpec>& AllCollectors() {
  static const std::vector<CollectorSpec> kAll = {
      // clang-format off
      MakeNetlinkStatCollectorSpec(),      // before sysfs: sets SharedFacts
      MakeNetlinkResourceCollectorSpec(),
      MakeSysfsCollectorSpec(),
      MakeRoceCollectorSpec(),
      MakePerfCollectorSpec(),
      MakeProbeCollectorSpec(),
      MakeFabricCollectorSpec(),
      MakeKmsgCollectorSpec(),
      MakePcieCollectorSpec(),
      MakeCarrierCollectorSpec(),
      MakeExpectCollectorSpec(),
      MakeEthtoolCollectorSpec(),
      MakePortHealthCollectorSpec(),
      MakeGpuCollectorSpec(),
      // clang-format on
  };
  return kAll;
}

}  // namespace rnic
