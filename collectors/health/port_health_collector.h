// port_health collector: one health state per RDMA port (ok, degraded,
// failed, unknown) with its reason, from the rules of port_health_rules.h
// over what each scrape reads: the port's state, rate, symbol and
// link-integrity error counters and link-down count (or its netdev's
// carrier_down_count), its PCI function's link and fatal AER counters, and
// its module's lane faults (published by the ethtool collector). Every file
// is read through a ReadGuard: a read that does not answer within the read
// deadline makes its port unknown and never holds the scrape.
#pragma once

#include <memory>
#include <string>

#include "collectors/collector_spec.h"
#include "collectors/common/read_guard.h"
#include "collectors/health/port_health_rules.h"
#include "collectors/module_faults.h"

namespace rnic {

// Without `model` the collector keeps a host model of its own on `sysfs`
// (tests); without `modules` no module faults are judged.
[[nodiscard]] std::unique_ptr<Collector> MakePortHealthCollector(
    std::string sysfs, health::Thresholds thresholds,
    std::shared_ptr<host::HostModel> model = nullptr,
    std::shared_ptr<const ModuleFaultBoard> modules = nullptr,
    ReadGuard::Options guard = {});

[[nodiscard]] CollectorSpec MakePortHealthCollectorSpec();

}  // namespace rnic
