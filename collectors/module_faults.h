// Lane faults of pluggable modules, passed from the collector that reads
// module EEPROMs (ethtool, off the scrape path) to the one that judges port
// health (port_health), which may not include each other. The reader
// publishes a whole map after each module reading; the judge looks a netdev
// up. Thread-safe: the two collectors run in parallel.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rnic {

struct ModuleLaneFault {
  int lane = 0;  // 1-based
  // "tx_fault", "rx_los", "tx_los", "rx_cdr_lol", "tx_cdr_lol"
  std::string kind;
  bool operator==(const ModuleLaneFault&) const = default;
};

// netdev -> faults of its module (empty: a module read, no fault). A
// netdev without a reading is absent.
using ModuleFaultMap =
    std::map<std::string, std::vector<ModuleLaneFault>, std::less<>>;

class ModuleFaultBoard {
 public:
  void Publish(ModuleFaultMap faults) {
    auto p = std::make_shared<const ModuleFaultMap>(std::move(faults));
    std::lock_guard lk(mu_);
    map_ = std::move(p);
  }
  // nullopt: no reading of that netdev's module.
  [[nodiscard]] std::optional<std::vector<ModuleLaneFault>> Get(
      std::string_view netdev) const {
    std::shared_ptr<const ModuleFaultMap> m;
    {
      std::lock_guard lk(mu_);
      m = map_;
    }
    const auto it = m->find(netdev);
    if (it == m->end()) return std::nullopt;
    return it->second;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ModuleFaultMap> map_ =
      std::make_shared<const ModuleFaultMap>();
};

}  // namespace rnic
