#include "collectors/roce/ethtool_names.h"

#include <array>
#include <utility>

namespace rnic {
namespace {

struct PrioSuffix {
  std::string_view suffix;
  RoceStatKind kind;
  bool tx_too;  // also valid with the tx_ prefix
};

constexpr std::array<PrioSuffix, 7> kPrioSuffixes = {{
    {"pause", RoceStatKind::kPauseFrames, true},
    {"pause_duration", RoceStatKind::kPauseDurationMicros, true},
    {"pause_transition", RoceStatKind::kPauseTransitions, false},
    {"discards", RoceStatKind::kPrioDiscards, false},
    {"buf_discard", RoceStatKind::kPrioBufferDiscards, false},
    {"cong_discard", RoceStatKind::kPrioCongestionDiscards, false},
    {"marked", RoceStatKind::kPrioEcnMarked, false},
}};

constexpr std::array<std::pair<std::string_view, RoceStatKind>, 10> kPlain = {{
    {"tx_pause_storm_warning_events", RoceStatKind::kPauseStormWarning},
    {"tx_pause_storm_error_events", RoceStatKind::kPauseStormError},
    {"rx_discards_phy", RoceStatKind::kPhyRxDiscards},
    {"tx_discards_phy", RoceStatKind::kPhyTxDiscards},
    {"rx_out_of_buffer", RoceStatKind::kRxOutOfBuffer},
    {"outbound_pci_stalled_rd", RoceStatKind::kPciStalledReadsPercent},
    {"outbound_pci_stalled_wr", RoceStatKind::kPciStalledWritesPercent},
    {"outbound_pci_stalled_rd_events", RoceStatKind::kPciStalledReadSeconds},
    {"outbound_pci_stalled_wr_events", RoceStatKind::kPciStalledWriteSeconds},
    {"outbound_pci_buffer_overflow", RoceStatKind::kPciBufferOverflow},
}};

}  // namespace

std::optional<RoceStat> ClassifyEthtoolName(std::string_view name) {
  for (const auto& [n, kind] : kPlain) {
    if (name == n) return RoceStat{kind, -1, {}};
  }
  // "<rx|tx>_prio<digit>_<suffix>", the whole string, nothing more.
  if (name.size() < 9) return std::nullopt;
  std::string_view dir;
  if (name.substr(0, 7) == "rx_prio") {
    dir = "rx";
  } else if (name.substr(0, 7) == "tx_prio") {
    dir = "tx";
  } else {
    return std::nullopt;
  }
  const char digit = name[7];
  if (digit < '0' || digit > '7' || name[8] != '_') return std::nullopt;
  const std::string_view suffix = name.substr(9);
  for (const auto& s : kPrioSuffixes) {
    if (suffix != s.suffix) continue;
    if (dir == "tx" && !s.tx_too) return std::nullopt;
    const bool directional = s.kind == RoceStatKind::kPauseFrames ||
                             s.kind == RoceStatKind::kPauseDurationMicros;
    return RoceStat{s.kind, digit - '0',
                    directional ? dir : std::string_view{}};
  }
  return std::nullopt;
}

}  // namespace rnic
