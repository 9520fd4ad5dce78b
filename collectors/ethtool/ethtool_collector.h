// ethtool collector: link health below the RDMA counters for every RDMA
// port on Ethernet, over ethtool generic netlink (not the ioctl the roce
// collector uses for driver counters):
//  - FEC: active mode, corrected / uncorrectable blocks, total and per lane
//    (ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS), read at each scrape;
//  - the standard statistics groups eth-phy, eth-mac, eth-ctrl and rmon
//    (ETHTOOL_MSG_STATS_GET) where the driver offers them, at each scrape;
//  - module diagnostics (ETHTOOL_MSG_MODULE_EEPROM_GET, SFF-8636 / CMIS),
//    read by a background thread at most once per interval and cached: a
//    scrape copies the cache and never waits on a module.
// A netdev whose driver answers EOPNOTSUPP (or ENODEV) gets no series for
// that part and one log line.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/common/log_once.h"
#include "collectors/ethtool/ethtool_nl.h"
#include "collectors/ethtool/optics_poller.h"
#include "collectors/host/model_view.h"
#include "collectors/metrics/label_cache.h"
#include "collectors/module_faults.h"
#include "collectors/nl/transport.h"

namespace rnic::ethtool {

struct Sources {
  std::string sysfs = "/sys";  // for a model of its own (tests)
  // FEC and statistics requests, on the scrape path. Null: none.
  std::unique_ptr<nl::NetlinkTransport> transport;
  // Module reads, on the poller thread. Null: no optics.
  optics::EepromReadFn eeprom;
  std::chrono::milliseconds optics_interval{std::chrono::seconds(60)};
  bool start_poller = true;  // false: tests call poller()->PollOnce()
  optics::WallClock now = std::chrono::system_clock::now;  // reading stamps
  // Where each module reading's lane faults are published (port_health
  // judges them). Null: not published.
  std::shared_ptr<ModuleFaultBoard> module_faults;
};

class EthtoolCollector final : public Collector {
 public:
  // Without `model` the collector keeps a host model of its own on
  // sources.sysfs (tests).
  EthtoolCollector(Sources sources, std::shared_ptr<host::HostModel> model);
  Status Collect(const ScrapeContext& ctx, MetricSet& out) override;
  [[nodiscard]] optics::OpticsPoller* poller() { return poller_.get(); }

 private:
  void CollectFec(const std::string& netdev, const LabelSetPtr& labels,
                  MetricSet& out);
  void CollectStats(const std::string& netdev, const LabelSetPtr& labels,
                    MetricSet& out);
  void EmitHistogram(const std::string& netdev, const StatsReply& reply,
                     const LabelSetPtr& labels, MetricSet& out);
  void EmitOptics(const optics::Reading& r, const LabelSetPtr& labels,
                  MetricSet& out);
  const FamilyDesc* StatFamily(std::uint32_t group, std::uint32_t id);

  host::ModelView model_;
  std::unique_ptr<nl::NetlinkTransport> transport_;
  std::optional<EthtoolNetlink> client_;
  std::unique_ptr<optics::OpticsPoller> poller_;
  LogOnce log_{"ethtool"};
  std::map<std::pair<std::uint32_t, std::uint32_t>, const FamilyDesc*>
      stat_families_;
  // Ethernet ports with a netdev, per host-model generation.
  host::GenerationGate ports_gate_;
  std::vector<std::pair<std::string, LabelSetPtr>> ports_;
  std::vector<std::string> netdevs_;
  // "fec/<netdev>", "stats/<netdev>": the driver answered EOPNOTSUPP. Not
  // asked again until the host model changes or 5 minutes passed (as the
  // roce collector does; a driver reloaded under the same name): dummy,
  // virtio and many VF netdevs would cost two requests each per scrape for
  // nothing.
  std::set<std::string, std::less<>> unsupported_;
  static constexpr std::chrono::minutes kRecheckUnsupported{5};
  void MarkUnsupported(const std::string& key);
  std::chrono::steady_clock::time_point unsupported_until_{};
  // Optics series per netdev, rendered once per reading.
  struct Rendered {
    std::chrono::system_clock::time_point read_at;
    LabelSetPtr labels;
    MetricSet set;
  };
  std::map<std::string, Rendered, std::less<>> rendered_;
  // Module lane faults, published when the poller's cache changes.
  std::shared_ptr<ModuleFaultBoard> module_faults_;
  std::shared_ptr<const optics::Cache> published_;
  void PublishFaults(const optics::Cache& cache);
  // RMON histogram series: label sets kept across scrapes (built when a
  // bucket first appears), and per-call scratch reused (no allocation once
  // warm).
  LabelCache hist_labels_;
  std::vector<LabelPair> hist_pairs_;
  std::vector<std::tuple<bool, std::uint32_t, std::uint32_t>> hist_seen_;
  std::string hist_key_;
};

[[nodiscard]] Result<optics::EepromReadFn> KernelEepromReader();

}  // namespace rnic::ethtool

namespace rnic {
[[nodiscard]] CollectorSpec MakeEthtoolCollectorSpec();
}  // namespace rnic
