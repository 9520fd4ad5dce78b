// Stand-in for a collector source: the linter reads MetricDoc names from
// string literals like these.
#include "collectors/collector_spec.h"

namespace rnic {

CollectorSpec MakeFakeCollectorSpec() {
  return CollectorSpec{
      .name = "fake",
      .help = "lint self-test",
      .metrics = {
          {"rnic_build_info", "gauge", "version", "Build facts."},
          {"rnic_port_data_transmitted_bytes_total", "counter", "device,port", "Bytes."},
          {"rnic_port_state", "gauge", "device,port", "State."},
          {"rnic_hw_<counter>_total", "counter", "device,port", "Driver counters."},
          {"rnic_fake_latency_seconds", "histogram", "device,port", "Latency."},
      },
  };
}

}  // namespace rnic
