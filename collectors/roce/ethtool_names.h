// Which ethtool statistics (ETH_SS_STATS strings) the roce collector exports,
// recognised by exact name only: dynolog's prefix match let "tx_prio0_pause"
// also match "tx_prio0_pause_duration". Names are those the mlx5 driver
// builds in en_stats.c (per-priority "rx_prio<p>_..." / "tx_prio<p>_...",
// PFC stall, physical-port discards, PCIe stall counters).
#pragma once

#include <optional>
#include <string_view>

namespace rnic {

enum class RoceStatKind {
  kPauseFrames,              // rx/tx_prio<p>_pause
  kPauseDurationMicros,      // rx/tx_prio<p>_pause_duration (microseconds)
  kPauseTransitions,         // rx_prio<p>_pause_transition
  kPrioDiscards,             // rx_prio<p>_discards
  kPrioBufferDiscards,       // rx_prio<p>_buf_discard
  kPrioCongestionDiscards,   // rx_prio<p>_cong_discard
  kPrioEcnMarked,            // rx_prio<p>_marked
  kPauseStormWarning,        // tx_pause_storm_warning_events
  kPauseStormError,          // tx_pause_storm_error_events
  kPhyRxDiscards,            // rx_discards_phy
  kPhyTxDiscards,            // tx_discards_phy
  kRxOutOfBuffer,            // rx_out_of_buffer
  kPciStalledReadsPercent,   // outbound_pci_stalled_rd (0..100, last second)
  kPciStalledWritesPercent,  // outbound_pci_stalled_wr
  kPciStalledReadSeconds,    // outbound_pci_stalled_rd_events
  kPciStalledWriteSeconds,   // outbound_pci_stalled_wr_events
  kPciBufferOverflow,        // outbound_pci_buffer_overflow
};

struct RoceStat {
  RoceStatKind kind;
  int priority = -1;           // 0..7 for per-priority names, else -1
  std::string_view direction;  // "rx" / "tx" for pause frames and durations
};

// nullopt for every name that is not exactly one of the above.
[[nodiscard]] std::optional<RoceStat> ClassifyEthtoolName(
    std::string_view name);

}  // namespace rnic
