// A netdev's ethtool statistics (what `ethtool -S` prints), behind an
// interface so tests can replay captures: the real source asks the kernel
// with the SIOCETHTOOL ioctl (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS,
// ETHTOOL_GSTATS), the fixture source reads `ethtool -S` text files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

// The string table of one netdev. Shared and immutable, so a caller can key
// its own per-table caches (e.g. which indices it exports) on the pointer.
using EthtoolNames = std::vector<std::string>;

struct EthtoolSnapshot {
  std::shared_ptr<const EthtoolNames> names;
  std::vector<std::uint64_t> values;  // values[i] belongs to (*names)[i]
};

class EthtoolStatsSource {
 public:
  virtual ~EthtoolStatsSource() = default;
  // Errors carry the kernel's errno: ENODEV for a vanished netdev,
  // EOPNOTSUPP for a driver without statistics (e.g. loopback).
  [[nodiscard]] virtual Result<EthtoolSnapshot> Read(
      const std::string& netdev) = 0;
};

// Real kernel. Caches each netdev's string table and fetches it again only
// when the statistics count changes (mlx5 adds/removes per-priority pause
// names when PFC is reconfigured, per-channel names with `ethtool -L`).
[[nodiscard]] std::unique_ptr<EthtoolStatsSource> MakeIoctlEthtoolStats();

// Replays `<dir>/<netdev>` files in `ethtool -S` format; a missing file reads
// as EOPNOTSUPP, like a driver without statistics.
[[nodiscard]] std::unique_ptr<EthtoolStatsSource> MakeFixtureEthtoolStats(
    std::string dir);

// Parses `ethtool -S` output ("NIC statistics:" then "     name: value").
[[nodiscard]] Result<EthtoolSnapshot> ParseEthtoolSOutput(
    std::string_view text);

}  // namespace rnic
