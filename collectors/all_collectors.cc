// The collector table. Order matters: factories run top to bottom, and
// netlink_stat must run before sysfs (see SharedFacts).
#include "collectors/collector_spec.h"
#include "collectors/kmsg/kmsg_collector.h"
#include "collectors/perf/perf_collector.h"
#include "collectors/probe/probe_collector.h"

namespace rnic {

const std::vector<CollectorSpec>& AllCollectors() {
  static const std::vector<CollectorSpec> kAll = {
      MakePerfCollectorSpec(),
      MakeProbeCollectorSpec(),
      MakeKmsgCollectorSpec(),
  };
  return kAll;
}

}  // namespace rnic
