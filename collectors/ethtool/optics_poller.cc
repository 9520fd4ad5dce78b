#include "collectors/ethtool/optics_poller.h"

#include <spdlog/common.h>

#include <algorithm>
#include <utility>

namespace rnic::optics {

Result<Diagnostics> ReadModule(const EepromReadFn& read,
                               std::string_view netdev) {
  ModulePages pages;
  auto lower = read(netdev, ethtool::EepromWindow{0, 0, 0, 128});
  if (!lower) return lower.error();
  if (lower->size() != pages.lower.size()) {
    return Error{"module EEPROM: short lower page", EIO};
  }
  std::copy(lower->begin(), lower->end(), pages.lower.begin());
  auto spec = Identify(pages.lower);
  if (!spec) return spec.error();
  for (const PageId& id : PagesToRead(*spec, pages.lower)) {
    auto upper =
        read(netdev, ethtool::EepromWindow{id.page, id.bank, 128, 128});
    if (!upper) return upper.error();
    if (upper->size() != 128) {
      return Error{"module EEPROM: short upper page", EIO};
    }
    std::copy(upper->begin(), upper->end(), pages.upper[id].begin());
  }
  // Lanes beyond 8 (CMIS banks 1-3). A bank the driver refuses (a kernel
  // or driver without banked reads) costs its lanes and those after it,
  // not the module's other series.
  for (const PageId& id : BankPagesToRead(*spec, pages)) {
    auto upper =
        read(netdev, ethtool::EepromWindow{id.page, id.bank, 128, 128});
    if (!upper || upper->size() != 128) break;
    std::copy(upper->begin(), upper->end(), pages.upper[id].begin());
  }
  // SFF-8472 diagnostics: A2h bytes 0..127 (128..255 hold user and vendor
  // EEPROM, nothing decoded), only when A0h says they exist (the kernel's
  // fallback for drivers without get_module_eeprom_by_page would answer A0h
  // again for a module without them).
  if (WantsA2h(*spec, pages.lower)) {
    auto a2h =
        read(netdev, ethtool::EepromWindow{0, 0, 0, 128, kSff8472DiagAddress});
    if (!a2h) return a2h.error();
    if (a2h->size() != 128) return Error{"module EEPROM: short A2h", EIO};
    pages.a2h.emplace();
    std::copy(a2h->begin(), a2h->end(), pages.a2h->begin());
  }
  return Decode(pages);
}

OpticsPoller::OpticsPoller(EepromReadFn read,
                           std::chrono::milliseconds interval, WallClock now)
    : read_(std::move(read)), interval_(interval), now_(std::move(now)) {}

OpticsPoller::~OpticsPoller() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  // A module read in progress finishes first (the netlink receive timeout
  // bounds it).
  if (thread_.joinable()) thread_.join();
}

void OpticsPoller::Start() {
  thread_ = std::thread([this] { Run(); });
}

void OpticsPoller::SetNetdevs(std::vector<std::string> netdevs) {
  std::sort(netdevs.begin(), netdevs.end());
  bool changed = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (netdevs != netdevs_) {
      netdevs_ = std::move(netdevs);
      wake_ = changed = true;
    }
  }
  if (changed) cv_.notify_all();
}

std::shared_ptr<const Cache> OpticsPoller::Snapshot() const {
  std::lock_guard<std::mutex> g(mu_);
  return cache_;
}

std::uint64_t OpticsPoller::rounds() const {
  std::lock_guard<std::mutex> g(mu_);
  return rounds_;
}

void OpticsPoller::PollOnce() {
  std::vector<std::string> netdevs;
  {
    std::lock_guard<std::mutex> g(mu_);
    netdevs = netdevs_;
  }
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(attempted_, [&](const auto& kv) {
    return !std::binary_search(netdevs.begin(), netdevs.end(), kv.first);
  });
  std::map<std::string, std::optional<Reading>> results;
  for (const std::string& netdev : netdevs) {
    {
      // Shutting down: do not start another module read.
      std::lock_guard<std::mutex> g(mu_);
      if (stop_) break;
    }
    auto it = attempted_.find(netdev);
    if (it != attempted_.end() && now - it->second < interval_) continue;
    attempted_[netdev] = now;
    // No lock held here: the scrape path never waits on this read.
    auto diag = ReadModule(read_, netdev);
    if (diag) {
      log_.Clear("optics/" + netdev);
      const std::string key = "optics-monitors/" + netdev;
      if (diag->monitors) {
        log_.Clear(key);
      } else {
        log_.Log(spdlog::level::info, key,
                 "module without usable diagnostics: rnic_optic_info only",
                 {{"key", key}, {"reason", diag->no_monitors_reason}});
      }
      results[netdev] = Reading{std::move(*diag), now_()};
    } else {
      // EOPNOTSUPP (virtio, no module), ENODEV, an unknown module type: one
      // line, no series.
      log_.Log(spdlog::level::info, "optics/" + netdev,
               "module diagnostics unavailable: no rnic_optic_* series",
               diag.error());
      results[netdev] = std::nullopt;
    }
  }
  auto next = std::make_shared<Cache>();
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& [netdev, reading] : *cache_) {
    if (std::binary_search(netdevs.begin(), netdevs.end(), netdev) &&
        !results.contains(netdev)) {
      next->emplace(netdev, reading);
    }
  }
  for (auto& [netdev, reading] : results) {
    if (reading) next->emplace(netdev, std::move(*reading));
  }
  cache_ = std::move(next);
  ++rounds_;
  cv_.notify_all();
  // A round that read modules, at debug level: what a test waits for
  // before it counts the once-only lines above.
  if (!results.empty()) {
    LogEvent(spdlog::level::debug, "ethtool", "optics round done",
             {{"round", std::to_string(rounds_)},
              {"modules", std::to_string(results.size())}});
  }
}

void OpticsPoller::Run() {
  for (;;) {
    PollOnce();
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait_for(lk, interval_, [this] { return stop_ || wake_; });
    if (stop_) return;
    wake_ = false;
  }
}

}  // namespace rnic::optics
