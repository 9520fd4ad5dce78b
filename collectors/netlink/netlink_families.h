// Families of the netlink_stat and netlink_resource collectors, declared once
// (collectors/metrics/family.h). Port state and the driver hw counters are
// shared with sysfs: collectors/metrics/port_families.h.
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::nl::families {

using prometheus::MetricType;

// netlink_stat
inline constexpr FamilyDesc kOptionalCounterInfo{
    "rnic_optional_counter_info", MetricType::Gauge,
    "device,port,counter,enabled",
    "Optional counter the port supports (STAT_GET_STATUS); enabled=\"1\" when "
    "it is on. Turn one on with `rdma statistic set link DEV/PORT "
    "optional-counters NAME`"};
inline constexpr FamilyDesc kBoundQps{
    "rnic_qp_counter_bound_qps", MetricType::Gauge,
    "device,port,comm,pid,pod_uid,container_id,slurm_job_id",
    "QPs bound to a counter (rdma statistic qp auto/manual mode), by process"};
// One family per counter name, named at run time (QpCounterFamily()).
inline constexpr FamilyDesc kQpCounter{
    "rnic_qp_counter_<counter>_total", MetricType::Counter,
    "device,port,comm,pid,pod_uid,container_id,slurm_job_id",
    "Sum of <counter> over the counters bound to a process's QPs; already "
    "included in rnic_hw_<counter>_total (never add the two); resets when the "
    "QPs go away. A pid label (the process id) is added with "
    "--collector.netlink_stat.qp-counters-by-pid, pod_uid and container_id "
    "with --collector.netlink_stat.qp-counters-pod-labels, slurm_job_id with "
    "--collector.netlink_stat.qp-counters-slurm-labels"};

// netlink_resource
inline constexpr FamilyDesc kResourceObjects{
    "rnic_resource_objects", MetricType::Gauge, "device,resource",
    "Objects of a kind on the device (RDMA_NLDEV_CMD_RES_GET summary, as "
    "`rdma resource show`; only objects visible in the exporter's PID "
    "namespace)"};
inline constexpr FamilyDesc kResourceQps{
    "rnic_resource_qps", MetricType::Gauge, "device,port,qp_type,state",
    "QPs by port, type and state (RDMA_NLDEV_CMD_RES_QP_GET; port \"0\": not "
    "bound to a port yet)"};
// Per-process groups; pod_uid and container_id only with
// --collector.netlink_resource.pod-labels and a process in a container,
// slurm_job_id only with --collector.netlink_resource.slurm-labels and a
// process in a Slurm job.
inline constexpr char kCommLabels[] =
    "device,comm,pod_uid,container_id,slurm_job_id";
inline constexpr FamilyDesc kCommQps{"rnic_resource_comm_qps",
                                     MetricType::Gauge, kCommLabels,
                                     "QPs held by a process"};
inline constexpr FamilyDesc kCommCqs{"rnic_resource_cqs", MetricType::Gauge,
                                     kCommLabels, "CQs held by a process"};
inline constexpr FamilyDesc kCommCqEntries{
    "rnic_resource_cq_entries", MetricType::Gauge, kCommLabels,
    "Total depth (CQEs) of the CQs a process holds"};
inline constexpr FamilyDesc kCommCqMaxEntries{
    "rnic_resource_cq_max_entries", MetricType::Gauge, kCommLabels,
    "Depth (CQEs) of the largest CQ a process holds"};
inline constexpr FamilyDesc kCommMrs{"rnic_resource_mrs", MetricType::Gauge,
                                     kCommLabels,
                                     "MRs registered by a process"};
inline constexpr FamilyDesc kCommMrPinnedBytes{
    "rnic_resource_mr_pinned_bytes", MetricType::Gauge, kCommLabels,
    "Bytes registered in a process's MRs (sum of mrlen)"};
inline constexpr FamilyDesc kCommPds{"rnic_resource_pds", MetricType::Gauge,
                                     kCommLabels,
                                     "Protection domains held by a process"};
inline constexpr FamilyDesc kCommContexts{
    "rnic_resource_contexts", MetricType::Gauge, kCommLabels,
    "Verbs contexts (open devices) held by a process"};

}  // namespace rnic::nl::families
