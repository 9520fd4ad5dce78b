#include "collectors/health/expect_collector.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "collectors/common/log_once.h"
#include "collectors/common/small_file.h"
#include "collectors/health/health_families.h"
#include "collectors/host/gpu_topology.h"
#include "collectors/host/gpudirect.h"
#include "collectors/host/host_facts.h"
#include "collectors/host/model_view.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic {
namespace {

using expect::Check;
using expect::CheckKind;
namespace fam = families;

constexpr const FamilyDesc* kFamilies[] = {&fam::kExpectCheck};

// Port-level checks have a port label; the others are per device.
bool PerPort(CheckKind k) {
  return k != CheckKind::kActivePorts && k != CheckKind::kNumaLocalIrqs &&
         k != CheckKind::kFirmware && k != CheckKind::kGpuDirect;
}
// Checks of the port's netdev: Ethernet ports only.
bool OfNetdev(CheckKind k) {
  return k == CheckKind::kMtu || k == CheckKind::kPfcPriorities ||
         k == CheckKind::kTrust || k == CheckKind::kEcnPriority;
}

class ExpectCollector final : public Collector {
 public:
  ExpectCollector(ExpectSources s, std::vector<expect::Entry> entries,
                  std::shared_ptr<host::HostModel> model)
      : src_(std::move(s)),
        entries_(std::move(entries)),
        model_(std::move(model), host::HostModel::Options{src_.sysfs}) {
    if (!src_.dcb) src_.dcb = MakeRtnetlinkDcbSource();
  }

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    if (entries_.empty()) return Status::Ok();
    dcb_.clear();
    const auto snap = model_.Get();
    if (node_cpus_gate_.Changed(*snap)) node_cpus_.Clear();
    gpus_read_ = false;
    for (const auto& devp : snap->devices) {
      if (ctx.Expired()) break;
      const host::Device& dev = *devp;
      // The first entry whose regex matches applies, so a device never has
      // two series for one check.
      const expect::Entry* entry = nullptr;
      for (const auto& e : entries_) {
        if (e.device.Search(dev.name)) {
          entry = &e;
          break;
        }
      }
      if (entry == nullptr) continue;
      for (const Check& c : entry->checks) {
        if (!PerPort(c.kind)) {
          Emit(out, dev.labels, c, DeviceCheck(dev, c));
          continue;
        }
        for (const host::Port& p : dev.ports) {
          if (OfNetdev(c.kind) && !p.ethernet()) continue;
          Emit(out, p.labels, c, PortCheck(dev, p, c));
        }
      }
    }
    return Status::Ok();
  }

 private:
  static void Emit(MetricSet& out, const LabelSetPtr& base, const Check& c,
                   bool holds) {
    out.Add(fam::kExpectCheck,
            base->With({{"check", expect::CheckName(c.kind)},
                        {"expected", c.expected}}),
            holds ? 1 : 0);
  }

  // A fact that cannot be read fails its check (drift must not hide behind
  // an unreadable file); why is logged once.
  void Unknown(const std::string& key, const Error& e) {
    log_.Log(spdlog::level::info, key, "fact unreadable, check reads 0", e);
  }

  std::string PortFile(const host::Device& dev, const host::Port& p,
                       const char* file) const {
    return src_.sysfs + "/class/infiniband/" + dev.name + "/" + p.dir + "/" +
           file;
  }

  bool DeviceCheck(const host::Device& dev, const Check& c) {
    switch (c.kind) {
      case CheckKind::kActivePorts: {
        int active = 0;
        for (const host::Port& p : dev.ports) {
          auto t = ReadSmallFile(PortFile(dev, p, "state"));
          if (!t.ok()) {
            Unknown("state/" + dev.name + "/" + p.label, t.error());
            continue;
          }
          const auto st = sysfs::ParseNumberedName(*t);
          if (st && st->number == 4) ++active;  // IB_PORT_ACTIVE
        }
        return active == static_cast<int>(c.number);
      }
      case CheckKind::kNumaLocalIrqs:
        return NumaLocal(dev) == c.flag;
      case CheckKind::kFirmware:
        return dev.fw_ver == c.text;
      case CheckKind::kGpuDirect: {
        const auto f = GpuDirectFact(dev);
        return f && *f == c.flag;  // unknown: neither value holds
      }
      default:
        return false;
    }
  }

  // The host's GPUs, read once per scrape that asks (a listing of the PCI
  // functions); nullptr when the tree cannot be read.
  const std::vector<gpu::Gpu>* Gpus() {
    if (!gpus_read_) {
      gpus_read_ = true;
      auto fns = gpu::ReadPciFunctions(src_.sysfs);
      if (fns.ok()) {
        gpus_ = gpu::FindGpus(*fns);
      } else {
        gpus_.reset();
        Unknown("pcitree", fns.error());
      }
    }
    return gpus_ ? &*gpus_ : nullptr;
  }

  // Whether the device can do GPUDirect RDMA; nullopt when a fact is
  // unreadable (logged once with its reason).
  std::optional<bool> GpuDirectFact(const host::Device& dev) {
    if (dev.pci_address.empty()) return false;  // rxe, siw
    const std::vector<gpu::Gpu>* gpus = Gpus();
    if (gpus == nullptr) return std::nullopt;
    if (gpus->empty()) return false;
    const gpu::ReadinessPaths paths{src_.sysfs, src_.procfs};
    bool unknown = false;
    for (const gpu::CheckResult& r :
         {gpu::CheckPeerMemory(paths, *gpus),
          gpu::CheckIommu(paths, dev.name, dev.pci_address)}) {
      if (r.state == gpu::CheckState::kFailed) return false;
      if (r.state == gpu::CheckState::kUnknown) {
        log_.Log(
            spdlog::level::info, "gpudirect/" + r.check + "/" + dev.name,
            "fact unreadable, check reads 0",
            {{"device", dev.name}, {"check", r.check}, {"reason", r.reason}});
        unknown = true;
      }
    }
    if (unknown) return std::nullopt;
    return true;
  }

  // nullopt when there is nothing to compare (no node, no IRQs known).
  std::optional<bool> NumaLocalFact(const host::Device& dev) {
    if (!dev.irqs_known || !dev.numa || *dev.numa < 0) return std::nullopt;
    auto cpus = node_cpus_.Get(*dev.numa);
    if (!cpus.ok()) {
      Unknown("nodecpus/" + dev.name, cpus.error());
      return std::nullopt;
    }
    const IrqPlacement placed =
        CheckIrqPlacement(src_.procfs, dev.irqs, **cpus);
    if (placed.checked == 0 && placed.irqs > 0) return std::nullopt;
    return placed.off_node == 0;
  }
  bool NumaLocal(const host::Device& dev) {
    auto f = NumaLocalFact(dev);
    if (!f) {
      log_.Log(spdlog::level::info, "numa/" + dev.name,
               "no NUMA node or IRQ affinity to compare, check reads 0",
               {{"device", dev.name}});
      return false;  // neither true nor false holds
    }
    return *f;
  }

  bool PortCheck(const host::Device& dev, const host::Port& p, const Check& c) {
    const std::string key = dev.name + "/" + p.label;
    switch (c.kind) {
      case CheckKind::kLinkLayer:
        return p.link_layer == c.text;
      case CheckKind::kRateGbps: {
        auto t = ReadSmallFile(PortFile(dev, p, "rate"));
        if (!t.ok()) {
          Unknown("rate/" + key, t.error());
          return false;
        }
        const auto bps = sysfs::ParseRateBytesPerSecond(*t);
        return bps && std::fabs(*bps * 8 / 1e9 - c.number) < 1e-6 * c.number;
      }
      default:
        break;
    }
    if (p.netdev.empty()) {
      Unknown("netdev/" + key, Error{"the port has no netdev"});
      return false;
    }
    switch (c.kind) {
      case CheckKind::kMtu: {
        auto mtu = ReadNetdevMtu(src_.sysfs, p.netdev);
        if (!mtu.ok()) {
          Unknown("mtu/" + key, mtu.error());
          return false;
        }
        return *mtu == static_cast<int>(c.number);
      }
      case CheckKind::kPfcPriorities:
      case CheckKind::kTrust: {
        // One dcbnl query per netdev and scrape, for both checks.
        auto it = dcb_.find(p.netdev);
        if (it == dcb_.end()) {
          it = dcb_.emplace(p.netdev, src_.dcb->Query(p.netdev)).first;
        }
        const Result<DcbInfo>& dcb = it->second;
        if (!dcb.ok()) {
          Unknown("dcb/" + key, dcb.error());
          return false;
        }
        if (c.kind == CheckKind::kPfcPriorities) {
          return dcb->pfc_enabled && *dcb->pfc_enabled == c.pfc_mask;
        }
        // mlx5 trust dscp installs DSCP APP entries; pcp has none.
        if (!dcb->app_dscp_entries) return false;
        return (*dcb->app_dscp_entries > 0 ? "dscp" : "pcp") == c.text;
      }
      case CheckKind::kEcnPriority: {
        auto ecn = ReadRoceEcn(src_.sysfs, p.netdev);
        if (!ecn.ok()) {
          Unknown("ecn/" + key, ecn.error());
          return false;
        }
        // Every role the driver has (np, rp) enabled on the priority.
        bool any = false;
        for (const EcnSetting& s : *ecn) {
          if (s.priority != static_cast<int>(c.number)) continue;
          if (!s.enabled) return false;
          any = true;
        }
        return any;
      }
      default:
        return false;
    }
  }

  ExpectSources src_;
  std::vector<expect::Entry> entries_;
  host::ModelView model_;
  host::GenerationGate node_cpus_gate_;
  NodeCpuCache node_cpus_{src_.sysfs};
  std::optional<std::vector<gpu::Gpu>> gpus_;
  bool gpus_read_ = false;                                   // this scrape
  std::map<std::string, Result<DcbInfo>, std::less<>> dcb_;  // this scrape
  LogOnce log_{"expect"};
};

}  // namespace

std::unique_ptr<Collector> MakeExpectCollector(
    ExpectSources sources, std::vector<expect::Entry> entries,
    std::shared_ptr<host::HostModel> model) {
  return std::make_unique<ExpectCollector>(
      std::move(sources), std::move(entries), std::move(model));
}

CollectorSpec MakeExpectCollectorSpec() {
  CollectorSpec s;
  s.name = "expect";
  s.help =
      "Configuration drift: compares every RDMA device with the expect "
      "section of --config.file (active port count, link layer, rate, netdev "
      "MTU, PFC priorities, trust mode, RoCE ECN, NUMA-local IRQs, firmware, "
      "GPUDirect RDMA) "
      "and exports 1 per check that holds, 0 per check that does not. "
      "Without an expect section it exports nothing.";
  s.default_enabled = true;
  s.families.assign(std::begin(kFamilies), std::end(kFamilies));
  s.check_config = CheckWith(expect::ParseExpectConfig);
  s.config_doc = expect::ExpectConfigDoc();
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto entries = expect::ParseExpectConfig(args.config);
    if (!entries.ok()) return entries.error();
    ExpectSources src;
    src.sysfs = args.paths.sysfs;
    src.procfs = args.paths.procfs;
    return MakeExpectCollector(std::move(src), std::move(entries).value(),
                               args.shared ? args.shared->host : nullptr);
  };
  return s;
}

}  // namespace rnic
