// The collector table. Order matters: factories run top to bottom, and
// netlink_stat must run before sysfs (see SharedFacts).
#include "collectors/collector_spec.h"
#include "collectors/perf/perf_collector.h"
#include "collectors/roce/roce_collector.h"

namespace rnic {

const std::vector<CollectorSpec>& AllCollectors() {
  static const std::vector<CollectorSpec> kAll = {
      MakePerfCollectorSpec(),
      MakeRoceCollectorSpec(),
  };
  return kAll;
}

}  // namespace rnic
