// Families of the health collectors (pcie, carrier, expect), declared once.
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::families {

using prometheus::MetricType;

// PCIe link of the RDMA device's PCI function. `pf` names the physical
// function of a VF (its physfn link) and is absent on a PF.
inline constexpr char kPcieLabels[] = "device,pci_address,pf";

inline constexpr FamilyDesc kPcieLinkSpeed{
    "rnic_pcie_link_speed_transfers_per_second", MetricType::Gauge, kPcieLabels,
    "Negotiated PCIe link speed of the RDMA device's PCI function in "
    "transfers per second per lane (current_link_speed: \"16.0 GT/s PCIe\" "
    "is 16e9). Absent when the kernel prints Unknown (VFs, links down)."};
inline constexpr FamilyDesc kPcieLinkMaxSpeed{
    "rnic_pcie_link_max_speed_transfers_per_second", MetricType::Gauge,
    kPcieLabels,
    "Highest PCIe link speed the function supports, in transfers per second "
    "per lane (max_link_speed)."};
inline constexpr FamilyDesc kPcieLinkWidth{
    "rnic_pcie_link_width_lanes", MetricType::Gauge, kPcieLabels,
    "Negotiated PCIe link width in lanes (current_link_width). Absent when "
    "the kernel reports 0 (VFs, links down)."};
inline constexpr FamilyDesc kPcieLinkMaxWidth{
    "rnic_pcie_link_max_width_lanes", MetricType::Gauge, kPcieLabels,
    "Widest PCIe link the function supports, in lanes (max_link_width)."};
inline constexpr FamilyDesc kPcieDowntrained{
    "rnic_pcie_link_downtrained", MetricType::Gauge, kPcieLabels,
    "1 if the PCIe link trained below what the function supports (speed or "
    "width under its maximum), else 0. Absent when current or maximum is "
    "unknown."};
inline constexpr FamilyDesc kPcieAerErrors{
    "rnic_pcie_aer_errors_total", MetricType::Counter,
    "device,pci_address,pf,class,error",
    "PCIe Advanced Error Reporting errors of the function by type, as the "
    "kernel counts them (aer_dev_correctable, aer_dev_nonfatal, "
    "aer_dev_fatal; class correctable, nonfatal or fatal; error the kernel's "
    "name, e.g. BadTLP, RxErr, CmpltTO). Absent without AER."};

inline constexpr FamilyDesc kCarrierChanges{
    "rnic_netdev_carrier_changes_total", MetricType::Counter,
    "device,port,netdev",
    "Link (carrier) state changes of the netdev carrying the RDMA port "
    "(/sys/class/net/<netdev>/carrier_changes): flaps."};
inline constexpr FamilyDesc kCarrierUp{
    "rnic_netdev_carrier_up_total", MetricType::Counter, "device,port,netdev",
    "Times the netdev's carrier came up (carrier_up_count, Linux 4.16+)."};
inline constexpr FamilyDesc kCarrierDown{
    "rnic_netdev_carrier_down_total", MetricType::Counter, "device,port,netdev",
    "Times the netdev's carrier went down (carrier_down_count, Linux 4.16+)."};

inline constexpr FamilyDesc kExpectCheck{
    "rnic_expect_check_ok", MetricType::Gauge, "device,port,check,expected",
    "1 if the device (or port) matches the expected configuration of the "
    "config file's expect section for this check, 0 if not or if the fact "
    "cannot be read. check: active_ports, link_layer, rate_gbps, mtu, "
    "pfc_priorities, trust, ecn_priority, numa_local_irqs, firmware, "
    "gpudirect; "
    "expected: the configured value. Device-level checks have no port."};

// Port health (collectors/health/README.md#port_health).
inline constexpr FamilyDesc kPortHealthState{
    "rnic_port_health_state", MetricType::Gauge, "device,port,state",
    "1 for the port's health state, 0 for the others (state: ok, degraded, "
    "failed, unknown), from the rules of the port_health collector: link "
    "drops and flaps, bit error ratio, PCIe downtraining and fatal AER "
    "errors, module lane faults, reads that did not answer."};
inline constexpr FamilyDesc kPortHealthInfo{
    "rnic_port_health_info", MetricType::Gauge, "device,port,state,reason",
    "Always 1: the port's health state and why (the rules that hold, "
    "joined by '; '; empty when ok)."};
inline constexpr FamilyDesc kPortHealthFlaps{
    "rnic_port_health_link_flaps", MetricType::Gauge, "device,port",
    "Link flaps (down and back up within the drop window) of the port "
    "within the flap window."};
inline constexpr FamilyDesc kHealthStuckReadSeconds{
    "rnic_port_health_stuck_read_seconds", MetricType::Gauge, "",
    "How long the oldest kernel read of the port_health collector that has "
    "not returned has been running, in seconds; 0 when none. Such a read "
    "runs off the scrape thread and its port is unknown."};
inline constexpr FamilyDesc kHealthStuckReads{
    "rnic_port_health_stuck_reads", MetricType::Gauge, "",
    "Kernel reads of the port_health collector that have not returned (one "
    "at most per file)."};

}  // namespace rnic::families
