// expect collector: compares every RDMA device with the expect section of
// --config.file (see expect_config.h) and exports one series per check, 1
// when it holds and 0 when not, so a fleet's drift is one query
// (rnic_expect_check_ok == 0). The facts are the ones the roce collector
// reads (host_facts, dcbnl) and the host model's; nothing is configured
// here that the exporter does not already read.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/health/expect_config.h"
#include "collectors/nl/dcb_source.h"

namespace rnic {

struct ExpectSources {
  std::string sysfs = "/sys";
  std::string procfs = "/proc";
  std::unique_ptr<DcbSource> dcb;  // null: rtnetlink
};

// Without `model` the collector keeps a host model of its own (tests).
[[nodiscard]] std::unique_ptr<Collector> MakeExpectCollector(
    ExpectSources sources, std::vector<expect::Entry> entries,
    std::shared_ptr<host::HostModel> model = nullptr);

[[nodiscard]] CollectorSpec MakeExpectCollectorSpec();

}  // namespace rnic
