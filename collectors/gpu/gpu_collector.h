// gpu collector: where the host's GPUs sit relative to its RDMA devices
// (the PCI relation nvidia-smi topo -m prints, a rail per device), labelled
// to join dcgm-exporter's and NCCL Inspector's series. Read from
// <sysfs>/bus/pci/devices; no GPU library. See README.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"

namespace rnic {

struct GpuCollectorOptions {
  std::string sysfs = "/sys";
  std::string procfs = "/proc";
  std::vector<std::string> rails;  // configured rail order, or empty
  // Read the configuration space of the bridges and NICs for the acs and
  // ats checks (needs CAP_SYS_ADMIN; unknown without).
  bool pci_config = false;
};

// Without `model` the collector keeps a host model of its own on
// options.sysfs (tests).
[[nodiscard]] std::unique_ptr<Collector> MakeGpuCollector(
    GpuCollectorOptions options,
    std::shared_ptr<host::HostModel> model = nullptr);

[[nodiscard]] CollectorSpec MakeGpuCollectorSpec();

}  // namespace rnic
