// Module (optics) reads off the scrape path: a background thread reads each
// netdev's module EEPROM at most once per interval and publishes decoded
// diagnostics in an immutable snapshot. A scrape only swaps a shared_ptr
// under a short mutex: a slow or hung module read (an I2C bus behind a busy
// firmware can take a second per page) never delays it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "collectors/common/log_once.h"
#include "collectors/common/result.h"
#include "collectors/ethtool/ethtool_nl.h"
#include "collectors/ethtool/module_eeprom.h"

namespace rnic::optics {

// Reads one EEPROM window of a netdev's module (EthtoolNetlink::ReadEeprom
// in production, fixtures in tests). Called from the poller thread only.
using EepromReadFn = std::function<Result<std::vector<std::uint8_t>>(
    std::string_view netdev, const ethtool::EepromWindow&)>;

// Reads the pages Decode() needs (lower page, then PagesToRead(), then a
// CMIS module's further banks, BankPagesToRead()) and decodes them.
[[nodiscard]] Result<Diagnostics> ReadModule(const EepromReadFn& read,
                                             std::string_view netdev);

struct Reading {
  Diagnostics diag;
  std::chrono::system_clock::time_point read_at;
};
// netdev -> its last good reading (a netdev whose read fails has none).
using Cache = std::map<std::string, Reading, std::less<>>;

// The time a reading is stamped with (tests fix it).
using WallClock = std::function<std::chrono::system_clock::time_point()>;

class OpticsPoller {
 public:
  OpticsPoller(EepromReadFn read, std::chrono::milliseconds interval,
               WallClock now = std::chrono::system_clock::now);
  ~OpticsPoller();
  OpticsPoller(const OpticsPoller&) = delete;
  OpticsPoller& operator=(const OpticsPoller&) = delete;

  // Starts the background thread (tests may instead call PollOnce()).
  void Start();
  // The netdevs to read (from the scrape's host snapshot). A new netdev is
  // read at once; a gone one leaves the cache at its next round.
  void SetNetdevs(std::vector<std::string> netdevs);
  // The readings so far; never waits on a module read.
  [[nodiscard]] std::shared_ptr<const Cache> Snapshot() const;
  // One round: reads every netdev whose reading is older than the interval
  // (or missing). The thread calls it; tests call it directly.
  void PollOnce();
  // Completed rounds (tests wait for the first one).
  [[nodiscard]] std::uint64_t rounds() const;

 private:
  void Run();
  EepromReadFn read_;
  std::chrono::milliseconds interval_;
  WallClock now_;
  LogOnce log_{"ethtool"};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool wake_ = false;
  std::uint64_t rounds_ = 0;
  std::vector<std::string> netdevs_;
  std::shared_ptr<const Cache> cache_ = std::make_shared<Cache>();
  // Poller thread only: when each netdev was last attempted.
  std::map<std::string, std::chrono::steady_clock::time_point> attempted_;
  std::thread thread_;
};

}  // namespace rnic::optics
