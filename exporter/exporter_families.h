// The exporter's own families, declared once (collectors/metrics/family.h).
#pragma once

#include <vector>

#include "collectors/metrics/family.h"

namespace rnic::exporter_families {

using prometheus::MetricType;

inline constexpr FamilyDesc kBuildInfo{
    "rnic_build_info", MetricType::Gauge, "version,revision,compiler",
    "A metric with a constant '1' value labeled by version, revision and "
    "compiler from which rnic_exporter was built."};
inline constexpr FamilyDesc kCollectorSuccess{
    "rnic_scrape_collector_success", MetricType::Gauge, "collector",
    "rnic_exporter: Whether a collector succeeded within the scrape "
    "deadline."};
inline constexpr FamilyDesc kCollectorDuration{
    "rnic_scrape_collector_duration_seconds", MetricType::Gauge, "collector",
    "rnic_exporter: Duration of a collector scrape."};
inline constexpr FamilyDesc kCpu{
    "process_cpu_seconds_total", MetricType::Counter, "",
    "Total user and system CPU time spent in seconds."};
inline constexpr FamilyDesc kStartTime{
    "process_start_time_seconds", MetricType::Gauge, "",
    "Start time of the process since unix epoch in seconds."};
inline constexpr FamilyDesc kVirtualMemory{"process_virtual_memory_bytes",
                                           MetricType::Gauge, "",
                                           "Virtual memory size in bytes."};
inline constexpr FamilyDesc kResidentMemory{"process_resident_memory_bytes",
                                            MetricType::Gauge, "",
                                            "Resident memory size in bytes."};
inline constexpr FamilyDesc kOpenFds{"process_open_fds", MetricType::Gauge, "",
                                     "Number of open file descriptors."};
inline constexpr FamilyDesc kMaxFds{"process_max_fds", MetricType::Gauge, "",
                                    "Maximum number of open file descriptors."};

}  // namespace rnic::exporter_families
