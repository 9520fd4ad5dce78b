#include "collectors/sysfs/pma_counters.h"

#include "collectors/metrics/family.h"

#include <array>

namespace rnic::sysfs {
namespace {

using Q = PmaQuantity;

constexpr std::string_view kXmitDataHelp =
    "Data bytes transmitted, excluding link packets (PMA PortXmitData from "
    "ports/N/counters/port_xmit_data, or counters_ext/port_xmit_data_64 on "
    "kernels before 4.5; the kernel value counts 4-octet units and is "
    "multiplied by 4).";
constexpr std::string_view kRcvDataHelp =
    "Data bytes received, excluding link packets (PMA PortRcvData from "
    "ports/N/counters/port_rcv_data, or counters_ext/port_rcv_data_64 on "
    "kernels before 4.5; the kernel value counts 4-octet units and is "
    "multiplied by 4).";
constexpr std::string_view kXmitPacketsHelp =
    "Packets transmitted (PMA PortXmitPkts, counters/port_xmit_packets or "
    "counters_ext/port_xmit_packets_64).";
constexpr std::string_view kRcvPacketsHelp =
    "Packets received (PMA PortRcvPkts, counters/port_rcv_packets or "
    "counters_ext/port_rcv_packets_64).";
constexpr std::string_view kUnicastXmitHelp =
    "Unicast packets transmitted (PMA PortUnicastXmitPkts, "
    "counters/unicast_xmit_packets or counters_ext/port_unicast_xmit_packets).";
constexpr std::string_view kUnicastRcvHelp =
    "Unicast packets received (PMA PortUnicastRcvPkts, "
    "counters/unicast_rcv_packets or counters_ext/port_unicast_rcv_packets).";
constexpr std::string_view kMulticastXmitHelp =
    "Multicast packets transmitted (PMA PortMulticastXmitPkts, "
    "counters/multicast_xmit_packets or "
    "counters_ext/port_multicast_xmit_packets).";
constexpr std::string_view kMulticastRcvHelp =
    "Multicast packets received (PMA PortMulticastRcvPkts, "
    "counters/multicast_rcv_packets or "
    "counters_ext/port_multicast_rcv_packets).";

constexpr std::array kCounters = {
    PmaCounterInfo{"symbol_error", "rnic_port_symbol_errors_total",
                   "Minor link errors detected on physical lanes (PMA "
                   "SymbolErrorCounter, counters/symbol_error; 16 bits, "
                   "saturates).",
                   16, 1, Q::kOther},
    PmaCounterInfo{"link_error_recovery", "rnic_port_link_error_recovery_total",
                   "Times the link error recovery process completed (PMA "
                   "LinkErrorRecoveryCounter, counters/link_error_recovery; "
                   "8 bits, saturates).",
                   8, 1, Q::kOther},
    PmaCounterInfo{"link_downed", "rnic_port_link_downed_total",
                   "Times link error recovery failed and the link went down "
                   "(PMA LinkDownedCounter, counters/link_downed; 8 bits, "
                   "saturates).",
                   8, 1, Q::kOther},
    PmaCounterInfo{"port_rcv_errors", "rnic_port_receive_errors_total",
                   "Packets received with errors (PMA PortRcvErrors, "
                   "counters/port_rcv_errors; 16 bits, saturates).",
                   16, 1, Q::kOther},
    PmaCounterInfo{"port_rcv_remote_physical_errors",
                   "rnic_port_receive_remote_physical_errors_total",
                   "Packets received marked bad by an upstream device (PMA "
                   "PortRcvRemotePhysicalErrors; 16 bits, saturates).",
                   16, 1, Q::kOther},
    PmaCounterInfo{"port_rcv_switch_relay_errors",
                   "rnic_port_receive_switch_relay_errors_total",
                   "Packets discarded because the switch relay could not "
                   "forward them (PMA PortRcvSwitchRelayErrors; 16 bits, "
                   "saturates).",
                   16, 1, Q::kOther},
    PmaCounterInfo{"port_xmit_discards", "rnic_port_transmit_discards_total",
                   "Outbound packets discarded because the port was down or "
                   "congested (PMA PortXmitDiscards; 16 bits, saturates).",
                   16, 1, Q::kOther},
    PmaCounterInfo{"port_xmit_constraint_errors",
                   "rnic_port_transmit_constraint_errors_total",
                   "Outbound packets not sent because of partition or raw "
                   "packet constraints (PMA PortXmitConstraintErrors; 8 bits, "
                   "saturates).",
                   8, 1, Q::kOther},
    PmaCounterInfo{"port_rcv_constraint_errors",
                   "rnic_port_receive_constraint_errors_total",
                   "Inbound packets discarded because of partition or raw "
                   "packet constraints (PMA PortRcvConstraintErrors; 8 bits, "
                   "saturates).",
                   8, 1, Q::kOther},
    PmaCounterInfo{"local_link_integrity_errors",
                   "rnic_port_local_link_integrity_errors_total",
                   "Times the local physical error threshold was exceeded "
                   "(PMA LocalLinkIntegrityErrors; 4 bits, saturates).",
                   4, 1, Q::kOther},
    PmaCounterInfo{"excessive_buffer_overrun_errors",
                   "rnic_port_excessive_buffer_overrun_errors_total",
                   "Times consecutive receive buffer overruns exceeded the "
                   "threshold (PMA ExcessiveBufferOverrunErrors; 4 bits, "
                   "saturates).",
                   4, 1, Q::kOther},
    PmaCounterInfo{"VL15_dropped", "rnic_port_vl15_dropped_total",
                   "Subnet management packets (VL15) dropped for lack of "
                   "buffers (PMA VL15Dropped; 16 bits, saturates).",
                   16, 1, Q::kOther},
    PmaCounterInfo{"port_xmit_wait", "rnic_port_transmit_wait_total",
                   "Ticks during which the port had data to send but no "
                   "flow-control credits (PMA PortXmitWait, "
                   "counters/port_xmit_wait; 32 bits, saturates).",
                   32, 1, Q::kOther},
    PmaCounterInfo{"port_xmit_data", "rnic_port_transmit_data_bytes_total",
                   kXmitDataHelp, 32, 4, Q::kXmitData},
    PmaCounterInfo{"port_rcv_data", "rnic_port_receive_data_bytes_total",
                   kRcvDataHelp, 32, 4, Q::kRcvData},
    PmaCounterInfo{"port_xmit_packets", "rnic_port_transmit_packets_total",
                   kXmitPacketsHelp, 32, 1, Q::kXmitPackets},
    PmaCounterInfo{"port_rcv_packets", "rnic_port_receive_packets_total",
                   kRcvPacketsHelp, 32, 1, Q::kRcvPackets},
    PmaCounterInfo{"unicast_xmit_packets",
                   "rnic_port_unicast_transmit_packets_total", kUnicastXmitHelp,
                   64, 1, Q::kUnicastXmit},
    PmaCounterInfo{"unicast_rcv_packets",
                   "rnic_port_unicast_receive_packets_total", kUnicastRcvHelp,
                   64, 1, Q::kUnicastRcv},
    PmaCounterInfo{"multicast_xmit_packets",
                   "rnic_port_multicast_transmit_packets_total",
                   kMulticastXmitHelp, 64, 1, Q::kMulticastXmit},
    PmaCounterInfo{"multicast_rcv_packets",
                   "rnic_port_multicast_receive_packets_total",
                   kMulticastRcvHelp, 64, 1, Q::kMulticastRcv},
};

constexpr std::array kExtCounters = {
    PmaCounterInfo{"port_xmit_data_64", "rnic_port_transmit_data_bytes_total",
                   kXmitDataHelp, 64, 4, Q::kXmitData},
    PmaCounterInfo{"port_rcv_data_64", "rnic_port_receive_data_bytes_total",
                   kRcvDataHelp, 64, 4, Q::kRcvData},
    PmaCounterInfo{"port_xmit_packets_64", "rnic_port_transmit_packets_total",
                   kXmitPacketsHelp, 64, 1, Q::kXmitPackets},
    PmaCounterInfo{"port_rcv_packets_64", "rnic_port_receive_packets_total",
                   kRcvPacketsHelp, 64, 1, Q::kRcvPackets},
    PmaCounterInfo{"port_unicast_xmit_packets",
                   "rnic_port_unicast_transmit_packets_total", kUnicastXmitHelp,
                   64, 1, Q::kUnicastXmit},
    PmaCounterInfo{"port_unicast_rcv_packets",
                   "rnic_port_unicast_receive_packets_total", kUnicastRcvHelp,
                   64, 1, Q::kUnicastRcv},
    PmaCounterInfo{"port_multicast_xmit_packets",
                   "rnic_port_multicast_transmit_packets_total",
                   kMulticastXmitHelp, 64, 1, Q::kMulticastXmit},
    PmaCounterInfo{"port_multicast_rcv_packets",
                   "rnic_port_multicast_receive_packets_total",
                   kMulticastRcvHelp, 64, 1, Q::kMulticastRcv},
};

}  // namespace

const PmaCounterInfo* FindPmaCounter(std::string_view name, bool ext_dir) {
  if (ext_dir) {
    for (const auto& c : kExtCounters) {
      if (c.kernel_name == name) return &c;
    }
    return nullptr;
  }
  for (const auto& c : kCounters) {
    if (c.kernel_name == name) return &c;
  }
  return nullptr;
}

std::span<const PmaCounterInfo> AllPmaCounters() { return kCounters; }

const FamilyDesc& PmaFamily(const PmaCounterInfo& info) {
  return InternFamily(info.family, prometheus::MetricType::Counter,
                      "device,port", info.help);
}

std::string UnknownPmaFamily(std::string_view name) {
  return "rnic_port_pma_" + MetricNamePart(name) + "_total";
}

}  // namespace rnic::sysfs
