// pcie collector: the PCIe link of every RDMA device's PCI function (the
// device's own, or its parent netdev's for rxe/siw): negotiated against
// maximum speed and width, a downtrained flag, and the AER error counters by
// type. Read from /sys/bus/pci/devices/<bdf> at each scrape; a VF carries a
// `pf` label naming its physical function.
#pragma once

#include <memory>
#include <string>

#include "collectors/collector_spec.h"

namespace rnic {

// Without `model` the collector keeps a host model of its own on `sysfs`
// (tests).
[[nodiscard]] std::unique_ptr<Collector> MakePcieCollector(
    std::string sysfs, std::shared_ptr<host::HostModel> model = nullptr);

[[nodiscard]] CollectorSpec MakePcieCollectorSpec();

}  // namespace rnic
