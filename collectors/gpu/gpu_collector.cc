#include "collectors/gpu/gpu_collector.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <optional>
#include <utility>

#include "collectors/common/log_once.h"
#include "collectors/gpu/gpu_families.h"
#include "collectors/host/gpu_topology.h"
#include "collectors/host/gpudirect.h"
#include "collectors/host/model_view.h"
#include "collectors/host/pci_tree.h"

namespace rnic {
namespace {

namespace fam = families;

constexpr const FamilyDesc* kFamilies[] = {
    &fam::kGpuInfo,
    &fam::kGpuTopology,
    &fam::kGpuDirectCheck,
};

// GPUs are not hot-plugged in practice, and the host model does not watch
// them: the PCI tree is read again when the RDMA devices change and at
// most this often otherwise (a listing and three small reads a function).
constexpr auto kRereadEvery = std::chrono::minutes(1);

class GpuCollector final : public Collector {
 public:
  GpuCollector(GpuCollectorOptions options,
               std::shared_ptr<host::HostModel> model)
      : opt_(std::move(options)),
        model_(std::move(model), host::HostModel::Options{opt_.sysfs}) {}

  Status Collect(const ScrapeContext& /*ctx*/, MetricSet& out) override {
    const auto snap = model_.Get();
    const auto now = CoarseNow();
    if (gate_.Changed(*snap) || !built_ || now - built_at_ >= kRereadEvery) {
      if (Status s = Rebuild(*snap); !s.ok()) return s;
      built_ = true;
      built_at_ = now;
    }
    for (const auto& l : gpu_labels_) out.Add(fam::kGpuInfo, l, 1);
    for (const auto& l : pair_labels_) out.Add(fam::kGpuTopology, l, 1);
    if (topo_.gpus.empty()) return Status::Ok();
    // Modules load and IOMMU domains change at run time: these few small
    // reads are done at every scrape. ACS is read with the tree.
    const gpu::ReadinessPaths paths{opt_.sysfs, opt_.procfs};
    Emit(gpu::CheckPeerMemory(paths, topo_.gpus), out);
    for (const auto& [device, fn] : topo_.nics) {
      Emit(gpu::CheckNicDmaBuf(paths, device, fn), out);
      const gpu::CheckResult iommu = gpu::CheckIommu(paths, device, fn.address);
      const auto ats = ats_.find(device);
      if (ats == ats_.end()) {
        Emit(iommu, out);
        continue;
      }
      // Translation with ATS on the function is fine; the ats check says
      // whether ATS was needed.
      Emit(ats->second.enabled == true
               ? gpu::CheckIommu(paths, device, fn.address, true)
               : iommu,
           out);
      Emit(gpu::CheckAts(device, ats->second.enabled, ats->second.why, iommu),
           out);
    }
    for (const auto& r : acs_) Emit(r, out);
    return Status::Ok();
  }

 private:
  static void Emit(const gpu::CheckResult& r, MetricSet& out) {
    out.Add(fam::kGpuDirectCheck,
            {{"check", r.check},
             {"device", r.device},
             {"state", std::string(gpu::CheckStateName(r.state))},
             {"reason", r.reason}},
            1);
  }

  Status Rebuild(const host::Snapshot& snap) {
    std::vector<std::string> skipped;
    auto fns = gpu::ReadPciFunctions(opt_.sysfs, &skipped);
    if (!fns.ok()) return fns.error();
    for (const auto& s : skipped) {
      log_.Log(spdlog::level::warn, "skip/" + s,
               "PCI function without a readable place in the tree, skipped",
               {{"pci_address", s}});
    }
    std::vector<gpu::RdmaFunction> nics;
    for (const auto& devp : snap.devices) {
      if (devp->pci_address.empty()) continue;  // rxe, siw
      nics.push_back(
          {devp->name, devp->pci_address, !devp->pf_pci_address.empty()});
    }
    topo_ = gpu::BuildTopology(*fns, nics, opt_.rails);
    gpu_labels_.clear();
    pair_labels_.clear();
    for (const gpu::Gpu& g : topo_.gpus) {
      gpu_labels_.push_back(LabelSet::Make(
          {{"gpu", g.index ? std::to_string(*g.index) : ""},
           {"pci_bus_id", g.bus_id},
           {"pci_address", g.fn.address},
           {"gpu_vendor", std::string(gpu::VendorName(g.vendor))},
           {"numa_node", g.fn.numa ? std::to_string(*g.fn.numa) : ""}}));
    }
    for (const gpu::Pair& p : topo_.pairs) {
      const gpu::Gpu& g = topo_.gpus[p.gpu];
      const auto rail = topo_.rails.find(p.device);
      pair_labels_.push_back(LabelSet::Make(
          {{"device", p.device},
           {"rail", rail == topo_.rails.end() ? "" : rail->second},
           {"gpu", g.index ? std::to_string(*g.index) : ""},
           {"pci_bus_id", g.bus_id},
           {"gpu_vendor", std::string(gpu::VendorName(g.vendor))},
           {"relation", std::string(gpu::RelationName(p.relation))},
           {"nearest", p.nearest ? "true" : "false"}}));
    }
    acs_.clear();
    ats_.clear();
    if (opt_.pci_config && !topo_.gpus.empty()) {
      const gpu::ReadinessPaths paths{opt_.sysfs, opt_.procfs};
      for (const auto& [device, fn] : topo_.nics) {
        Ats& a = ats_[device];
        a.enabled = gpu::ReadAtsEnabled(paths, fn.address, &a.why);
        if (const gpu::Gpu* g = topo_.NearestGpu(device)) {
          acs_.push_back(gpu::CheckAcs(paths, device, fn, *g, a.enabled));
        }
      }
    }
    return Status::Ok();
  }

  GpuCollectorOptions opt_;
  host::ModelView model_;
  host::GenerationGate gate_;
  bool built_ = false;
  std::chrono::steady_clock::time_point built_at_{};
  gpu::Topology topo_;
  std::vector<LabelSetPtr> gpu_labels_;
  std::vector<LabelSetPtr> pair_labels_;
  std::vector<gpu::CheckResult> acs_;
  // ATS of each device's function (read with the tree).
  struct Ats {
    std::optional<bool> enabled;
    std::string why;  // when unreadable
  };
  std::map<std::string, Ats, std::less<>> ats_;
  LogOnce log_{"gpu"};
};

}  // namespace

std::unique_ptr<Collector> MakeGpuCollector(
    GpuCollectorOptions options, std::shared_ptr<host::HostModel> model) {
  return std::make_unique<GpuCollector>(std::move(options), std::move(model));
}

CollectorSpec MakeGpuCollectorSpec() {
  CollectorSpec s;
  s.name = "gpu";
  s.help =
      "GPUs from the PCI tree: each RDMA device's rail and nvidia-smi topo "
      "relation to each GPU, with dcgm-exporter's labels; GPUDirect RDMA "
      "readiness.";
  s.default_enabled = false;
  s.options = {
      StringOption("rails",
                   "RDMA device names in rail order, comma-separated; "
                   "unlisted devices get no rail. Empty: physical functions "
                   "by PCI address."),
      BoolOption("pci-config",
                 "Read PCI configuration space for the acs and ats checks "
                 "(needs CAP_SYS_ADMIN, else unknown).",
                 false),
  };
  s.families.assign(std::begin(kFamilies), std::end(kFamilies));
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto rails = gpu::ParseRailOrder(args.String("rails"));
    if (!rails.ok()) {
      return Error{"--collector.gpu.rails: " + rails.error().message};
    }
    GpuCollectorOptions o;
    o.sysfs = args.paths.sysfs;
    o.procfs = args.paths.procfs;
    o.rails = std::move(rails).value();
    o.pci_config = args.Bool("pci-config");
    return MakeGpuCollector(std::move(o),
                            args.shared ? args.shared->host : nullptr);
  };
  return s;
}

}  // namespace rnic
