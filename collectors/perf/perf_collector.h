// perf collector: hardware PMU events (PCIe traffic of the NIC's root port
// from uncore_iio, NIC PMUs such as hns3_pmu, or any PMU in
// /sys/bus/event_source) counted with perf_event_open and exported as
// counters. Events are configured in the `perf:` section of --config.file.
#pragma once

#include "collectors/collector_spec.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakePerfCollectorSpec();

}  // namespace rnic
