#include "collectors/health/port_health_collector.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "collectors/common/config_schema.h"
#include "collectors/health/health_families.h"
#include "collectors/health/pcie_parse.h"
#include "collectors/health/port_health_config.h"
#include "collectors/host/model_view.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic {
namespace {

namespace fam = families;
using health::Link;
using health::Observation;

constexpr const FamilyDesc* kFamilies[] = {
    &fam::kPortHealthState,  &fam::kPortHealthInfo,
    &fam::kPortHealthFlaps,  &fam::kHealthStuckReadSeconds,
    &fam::kHealthStuckReads,
};

// The files of one port, in this order.
enum PortFile {
  kState,
  kRate,
  kSymbolErrors,
  kIntegrityErrors,
  kLinkDowned,
  kCarrierDown,
  kPortFiles
};
// The files of one PCI function.
enum PciFile { kSpeed, kMaxSpeed, kWidth, kMaxWidth, kAerFatal, kPciFiles };
constexpr const char* kPciNames[kPciFiles] = {
    "current_link_speed", "max_link_speed", "current_link_width",
    "max_link_width", "aer_dev_fatal"};

class PortHealthCollector final : public Collector {
 public:
  PortHealthCollector(std::string sysfs, health::Thresholds t,
                      std::shared_ptr<host::HostModel> model,
                      std::shared_ptr<const ModuleFaultBoard> modules,
                      ReadGuard::Options guard)
      : sysfs_(std::move(sysfs)),
        t_(std::move(t)),
        model_(std::move(model), host::HostModel::Options{sysfs_}),
        modules_(std::move(modules)),
        guard_(guard) {}

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    const auto snap = model_.Get();
    if (pruned_.Changed(*snap)) Prune(*snap);
    // One batch for the whole scrape: every port's files, every function's.
    paths_.clear();
    std::vector<std::pair<PortEntry*, const host::Port*>> ports;
    std::map<std::string, std::size_t, std::less<>> pci_first;  // bdf -> index
    for (const auto& devp : snap->devices) {
      const host::Device& dev = *devp;
      const std::string& pci =
          dev.pci_address.empty() ? dev.parent_pci_address : dev.pci_address;
      if (!pci.empty() && !pci_first.contains(pci)) {
        pci_first[pci] = paths_.size();
        for (const char* f : kPciNames) {
          paths_.push_back(sysfs_ + "/bus/pci/devices/" + pci + "/" + f);
        }
      }
      for (const host::Port& p : dev.ports) {
        PortEntry& e = Entry(dev, p);
        e.first = paths_.size();
        e.pci = pci.empty() ? SIZE_MAX : pci_first[pci];
        const std::string dir =
            sysfs_ + "/class/infiniband/" + dev.name + "/" + p.dir + "/";
        paths_.push_back(dir + "state");
        paths_.push_back(dir + "rate");
        paths_.push_back(dir + "counters/symbol_error");
        paths_.push_back(dir + "counters/local_link_integrity_errors");
        paths_.push_back(dir + "counters/link_downed");
        paths_.push_back(p.netdev.empty() || !p.netdev_visible
                             ? std::string()
                             : sysfs_ + "/class/net/" + p.netdev +
                                   "/carrier_down_count");
        ports.emplace_back(&e, &p);
      }
    }
    // Files known absent, and slots without a file, are not read.
    std::vector<std::string> wanted;
    std::vector<std::size_t> index(paths_.size(), SIZE_MAX);
    for (std::size_t i = 0; i < paths_.size(); ++i) {
      if (paths_[i].empty() || absent_.contains(paths_[i])) continue;
      index[i] = wanted.size();
      wanted.push_back(paths_[i]);
    }
    const auto now = ReadGuard::Clock::now();
    const auto deadline = std::min(ctx.deadline, now + t_.read_deadline);
    auto answers = guard_.ReadAll(wanted, deadline);
    // Per path: text, or nullopt (absent, unreadable); `stuck` when the
    // read did not answer.
    texts_.assign(paths_.size(), std::nullopt);
    stuck_.assign(paths_.size(), false);
    for (std::size_t i = 0; i < paths_.size(); ++i) {
      if (index[i] == SIZE_MAX) continue;
      auto& a = answers[index[i]];
      if (!a.text) {
        stuck_[i] = true;
      } else if (a.text->ok()) {
        texts_[i] = std::move(a.text->value());
      } else if (a.text->error().errno_value == ENOENT) {
        absent_.insert(paths_[i]);
      }
    }
    for (auto& [e, p] : ports) {
      Observation o = Observe(*e, *p, now);
      const health::Verdict& v = e->machine.Observe(o);
      Emit(*e, v, out);
    }
    const auto pending = guard_.PendingReads();
    out.Add(fam::kHealthStuckReadSeconds, {},
            std::chrono::duration<double>(pending.oldest).count());
    out.Add(fam::kHealthStuckReads, {}, static_cast<double>(pending.reads));
    return Status::Ok();
  }

 private:
  struct PortEntry {
    explicit PortEntry(const health::Thresholds& t) : machine(t) {}
    std::uint64_t instance = 0;
    std::string netdev;
    bool infiniband = false;
    health::PortHealth machine;
    LabelSetPtr labels;
    LabelSetPtr state_labels[std::size(health::kAllStates)];
    health::Verdict info_for;  // what info_labels say
    LabelSetPtr info_labels;
    std::size_t first = 0;  // this scrape's first path
    std::size_t pci = SIZE_MAX;
  };

  PortEntry& Entry(const host::Device& dev, const host::Port& p) {
    std::string key = dev.name + "/" + p.label;
    auto it = ports_.find(key);
    if (it == ports_.end() || it->second->instance != dev.instance ||
        it->second->netdev != p.netdev) {
      // A new port, a device registered anew, a netdev renamed: new history.
      auto e = std::make_unique<PortEntry>(t_);
      e->instance = dev.instance;
      e->netdev = p.netdev;
      e->infiniband = p.link_layer == "InfiniBand";
      e->labels = p.labels;
      for (std::size_t s = 0; s < std::size(health::kAllStates); ++s) {
        e->state_labels[s] = p.labels->With(
            {{"state", std::string(health::StateName(health::kAllStates[s]))}});
      }
      it = ports_.insert_or_assign(std::move(key), std::move(e)).first;
    }
    return *it->second;
  }

  // The path relative to the sysfs root, for a reason.
  std::string Relative(const std::string& path) const {
    return path.starts_with(sysfs_ + "/") ? path.substr(sysfs_.size() + 1)
                                          : path;
  }

  std::optional<std::uint64_t> Counter(std::size_t i) const {
    if (!texts_[i]) return std::nullopt;
    const auto v = sysfs::ParseCounterValue(*texts_[i]);
    if (v.status != sysfs::ValueStatus::kOk) return std::nullopt;
    return v.value;
  }

  Observation Observe(const PortEntry& e, const host::Port& p,
                      ReadGuard::Clock::time_point now) {
    Observation o;
    o.at = now;
    auto stuck = [&](std::size_t i) {
      if (!stuck_[i]) return false;
      o.stuck = "read of " + Relative(paths_[i]) + " not answered within " +
                config::FormatDuration(t_.read_deadline);
      return true;
    };
    for (std::size_t i = e.first; i < e.first + kPortFiles; ++i) {
      if (stuck(i)) return o;
    }
    if (e.pci != SIZE_MAX) {
      for (std::size_t i = e.pci; i < e.pci + kPciFiles; ++i) {
        if (stuck(i)) return o;
      }
    }
    const std::size_t b = e.first;
    if (texts_[b + kState]) {
      if (auto s = sysfs::ParseNumberedName(*texts_[b + kState])) {
        // ACTIVE (4) and ACTIVE_DEFER (5) carry traffic; DOWN, INIT and
        // ARMED (no subnet manager yet) do not.
        o.link = s->number >= 4 ? Link::kUp : Link::kDown;
      }
    }
    if (texts_[b + kRate]) {
      if (auto r = sysfs::ParseRateBytesPerSecond(*texts_[b + kRate])) {
        o.rate_gbps = *r * 8 / 1e9;
      }
    }
    if (auto sym = Counter(b + kSymbolErrors)) {
      o.bit_errors = *sym + Counter(b + kIntegrityErrors).value_or(0);
    }
    // A netdev's carrier count sees every down; the PMA counter counts
    // failed link recoveries, the IB link's downs.
    o.down_events =
        e.infiniband ? Counter(b + kLinkDowned) : Counter(b + kCarrierDown);
    if (!o.down_events) {
      o.down_events =
          e.infiniband ? Counter(b + kCarrierDown) : Counter(b + kLinkDowned);
    }
    if (e.pci != SIZE_MAX) {
      std::optional<double> speed[2];
      std::optional<int> width[2];
      for (int k = 0; k < 2; ++k) {
        if (texts_[e.pci + kSpeed + k]) {
          speed[k] = pcie::ParseLinkSpeed(*texts_[e.pci + kSpeed + k]);
        }
        if (texts_[e.pci + kWidth + k]) {
          width[k] = pcie::ParseLinkWidth(*texts_[e.pci + kWidth + k]);
        }
      }
      if (speed[0] && speed[1] && width[0] && width[1]) {
        o.pcie_downtrained = *speed[0] < *speed[1] || *width[0] < *width[1];
      }
      if (texts_[e.pci + kAerFatal]) {
        if (auto c = pcie::ParseAerCounters(*texts_[e.pci + kAerFatal])) {
          std::uint64_t sum = 0;
          for (const auto& a : *c) sum += a.count;
          o.aer_fatal = sum;
        }
      }
    }
    if (modules_ && !p.netdev.empty()) {
      if (auto f = modules_->Get(p.netdev)) o.module_faults = std::move(*f);
    }
    return o;
  }

  void Emit(PortEntry& e, const health::Verdict& v, MetricSet& out) {
    for (std::size_t s = 0; s < std::size(health::kAllStates); ++s) {
      out.Add(fam::kPortHealthState, e.state_labels[s],
              health::kAllStates[s] == v.state ? 1 : 0);
    }
    if (!e.info_labels || !(e.info_for == v)) {
      e.info_for = v;
      e.info_labels =
          e.labels->With({{"state", std::string(health::StateName(v.state))},
                          {"reason", v.reason}});
    }
    out.Add(fam::kPortHealthInfo, e.info_labels, 1);
    out.Add(fam::kPortHealthFlaps, e.labels, e.machine.flaps());
  }

  void Prune(const host::Snapshot& snap) {
    std::set<std::string, std::less<>> alive;
    for (const auto& devp : snap.devices) {
      for (const host::Port& p : devp->ports) {
        alive.insert(devp->name + "/" + p.label);
      }
    }
    std::erase_if(ports_,
                  [&](const auto& kv) { return !alive.contains(kv.first); });
    // A device that came back may have files it lacked before.
    absent_.clear();
    guard_.Retain([](const std::string&) { return false; });
  }

  std::string sysfs_;
  health::Thresholds t_;  // the machines point at it
  host::ModelView model_;
  std::shared_ptr<const ModuleFaultBoard> modules_;
  ReadGuard guard_;
  host::GenerationGate pruned_;
  std::map<std::string, std::unique_ptr<PortEntry>, std::less<>> ports_;
  std::set<std::string, std::less<>> absent_;
  // This scrape's paths and what they gave (reused buffers).
  std::vector<std::string> paths_;
  std::vector<std::optional<std::string>> texts_;
  std::vector<bool> stuck_;
};

}  // namespace

std::unique_ptr<Collector> MakePortHealthCollector(
    std::string sysfs, health::Thresholds thresholds,
    std::shared_ptr<host::HostModel> model,
    std::shared_ptr<const ModuleFaultBoard> modules, ReadGuard::Options guard) {
  return std::make_unique<PortHealthCollector>(
      std::move(sysfs), std::move(thresholds), std::move(model),
      std::move(modules), guard);
}

CollectorSpec MakePortHealthCollectorSpec() {
  CollectorSpec s;
  s.name = "port_health";
  s.help =
      "A health state per RDMA port (ok, degraded, failed, unknown) and its "
      "reason: link drops and flaps, bit error ratio, PCIe and module "
      "faults; a hung kernel read makes the port unknown, never the scrape "
      "slow. Thresholds: the port_health section of --config.file.";
  s.default_enabled = true;
  s.families.assign(std::begin(kFamilies), std::end(kFamilies));
  s.check_config = CheckWith(health::ParsePortHealthConfig);
  s.config_doc = health::PortHealthConfigDoc();
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto t = health::ParsePortHealthConfig(args.config);
    if (!t.ok()) return t.error();
    return MakePortHealthCollector(
        args.paths.sysfs, std::move(t).value(),
        args.shared ? args.shared->host : nullptr,
        args.shared ? args.shared->module_faults : nullptr);
  };
  return s;
}

}  // namespace rnic
