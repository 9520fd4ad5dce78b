// Families of the kmsg collector, declared once (collectors/metrics/family.h).
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::kmsg::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kCqErrors{
    "rnic_kernel_cq_errors_total", MetricType::Counter,
    "device,pci,syndrome,reason",
    "Kernel log lines 'CQ error on CQN .., syndrome ..' (mlx5) since the "
    "exporter started, by RDMA device (\"\" if the PCI function maps to "
    "none), PCI function, syndrome and its meaning (0x1 overrun, 0x2 "
    "access_violation)."};
inline constexpr FamilyDesc kRecords{
    "rnic_kernel_log_records_total", MetricType::Counter, "",
    "Kernel log records read since the exporter started."};
inline constexpr FamilyDesc kRecordsLost{
    "rnic_kernel_log_records_lost_total", MetricType::Counter, "",
    "Kernel log records overwritten before the exporter read them "
    "(sequence-number gaps)."};

}  // namespace rnic::kmsg::families
