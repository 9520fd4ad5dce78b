#include "collectors/health/pcie_collector.h"

#include <spdlog/spdlog.h>

#include <map>
#include <set>
#include <utility>

#include "collectors/common/log_once.h"
#include "collectors/common/small_file.h"
#include "collectors/health/health_families.h"
#include "collectors/health/pcie_parse.h"
#include "collectors/host/model_view.h"

namespace rnic {
namespace {

namespace fam = families;

constexpr const FamilyDesc* kFamilies[] = {
    &fam::kPcieLinkSpeed,    &fam::kPcieLinkMaxSpeed, &fam::kPcieLinkWidth,
    &fam::kPcieLinkMaxWidth, &fam::kPcieDowntrained,  &fam::kPcieAerErrors,
};

struct AerFile {
  const char* file;
  const char* aer_class;
};
constexpr AerFile kAerFiles[] = {
    {"aer_dev_correctable", "correctable"},
    {"aer_dev_nonfatal", "nonfatal"},
    {"aer_dev_fatal", "fatal"},
};

class PcieCollector final : public Collector {
 public:
  PcieCollector(std::string sysfs, std::shared_ptr<host::HostModel> model)
      : sysfs_(std::move(sysfs)),
        model_(std::move(model), host::HostModel::Options{sysfs_}) {}

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    const auto snap = model_.Get();
    for (const auto& devp : snap->devices) {
      const host::Device& dev = *devp;
      if (ctx.Expired()) break;
      // rxe and siw sit on their parent netdev's function.
      const std::string& pci =
          dev.pci_address.empty() ? dev.parent_pci_address : dev.pci_address;
      if (pci.empty()) continue;
      // A function is reported once, under the device its driver names:
      // rxe on an mlx5 netdev leaves the function to mlx5_N.
      if (dev.pci_address.empty() && snap->FindPci(pci) != &dev) continue;
      Function& fn = StateFor(dev, pci);
      Link(fn, out);
      Aer(fn, out);
    }
    // Devices the model no longer has leave no state behind (looked at
    // only when the model changed).
    if (!pruned_.Changed(*snap)) return Status::Ok();
    std::set<std::string, std::less<>> alive;
    for (const auto& devp : snap->devices) alive.insert(devp->name);
    std::erase_if(fns_,
                  [&](const auto& kv) { return !alive.contains(kv.first); });
    log_.ClearIf([&](std::string_view k) {
      const auto slash = k.find('/');
      return slash != std::string_view::npos &&
             !alive.contains(k.substr(slash + 1));
    });
    return Status::Ok();
  }

 private:
  struct Function {
    std::uint64_t instance = 0;
    std::string device;
    std::string pci;
    std::string dir;  // <sysfs>/bus/pci/devices/<bdf>/
    LabelSetPtr labels;
    std::map<std::string, LabelSetPtr, std::less<>> aer_labels;
    // The link and AER files, read at every scrape: held open. One the
    // function lacks (no PCIe capability, no AER) is not looked for again:
    // the set of attributes is fixed while the device stays registered, and
    // a new registration starts over with a new Function.
    struct File {
      CachedFd fd;
      bool absent = false;
    };
    std::map<std::string, File, std::less<>> files;
  };

  Function& StateFor(const host::Device& dev, const std::string& pci) {
    Function& fn = fns_[dev.name];
    if (fn.instance != dev.instance || fn.pci != pci || !fn.labels) {
      fn = Function{};
      fn.instance = dev.instance;
      fn.device = dev.name;
      fn.pci = pci;
      fn.dir = sysfs_ + "/bus/pci/devices/" + pci + "/";
      // A VF names its PF (the host model read its physfn link); rxe on a
      // VF's netdev is labelled by the function alone.
      const std::string pf =
          pci == dev.pci_address ? dev.pf_pci_address : std::string();
      fn.labels = pf.empty()
                      ? dev.labels->With({{"pci_address", pci}})
                      : dev.labels->With({{"pci_address", pci}, {"pf", pf}});
    }
    return fn;
  }

  // One attribute, or nullopt (logged once when it is there but unreadable
  // or malformed; absent files are older kernels and not worth a line).
  std::optional<std::string> Read(Function& fn, const char* file) {
    auto it = fn.files.find(std::string_view(file));
    if (it == fn.files.end()) it = fn.files.try_emplace(file).first;
    Function::File& f = it->second;
    if (f.absent) return std::nullopt;
    auto text = ReadSmallFile(f.fd, fn.dir + file);
    if (!text.ok()) {
      if (text.error().errno_value == ENOENT) {
        f.absent = true;
      } else {
        log_.Log(spdlog::level::warn, std::string(file) + "/" + fn.device,
                 "value skipped", text.error());
      }
      return std::nullopt;
    }
    return std::move(text).value();
  }

  void Malformed(const Function& fn, const char* file,
                 const std::string& text) {
    log_.Log(spdlog::level::warn, std::string(file) + "/" + fn.device,
             "unparsable PCIe attribute, value skipped",
             {{"pci_address", fn.pci}, {"file", file}, {"text", text}});
  }

  void Link(Function& fn, MetricSet& out) {
    std::optional<double> speed[2];
    std::optional<int> width[2];
    const char* speed_files[2] = {"current_link_speed", "max_link_speed"};
    const char* width_files[2] = {"current_link_width", "max_link_width"};
    for (int i = 0; i < 2; ++i) {
      if (auto t = Read(fn, speed_files[i])) {
        speed[i] = pcie::ParseLinkSpeed(*t);
        // "Unknown" is the kernel's own answer, not a parse failure.
        if (!speed[i] && !t->starts_with("Unknown")) {
          Malformed(fn, speed_files[i], *t);
        }
      }
      if (auto t = Read(fn, width_files[i])) {
        width[i] = pcie::ParseLinkWidth(*t);
        if (!width[i] && *t != "0") Malformed(fn, width_files[i], *t);
      }
    }
    if (speed[0]) out.Add(fam::kPcieLinkSpeed, fn.labels, *speed[0]);
    if (speed[1]) out.Add(fam::kPcieLinkMaxSpeed, fn.labels, *speed[1]);
    if (width[0]) out.Add(fam::kPcieLinkWidth, fn.labels, *width[0]);
    if (width[1]) out.Add(fam::kPcieLinkMaxWidth, fn.labels, *width[1]);
    if (speed[0] && speed[1] && width[0] && width[1]) {
      const bool down = *speed[0] < *speed[1] || *width[0] < *width[1];
      out.Add(fam::kPcieDowntrained, fn.labels, down ? 1 : 0);
    }
  }

  void Aer(Function& fn, MetricSet& out) {
    for (const AerFile& f : kAerFiles) {
      auto text = Read(fn, f.file);
      if (!text) continue;
      auto counts = pcie::ParseAerCounters(*text);
      if (!counts.ok()) {
        log_.Log(spdlog::level::warn, std::string(f.file) + "/" + fn.device,
                 "unparsable AER counters, skipped",
                 {{"pci_address", fn.pci},
                  {"file", f.file},
                  {"err", counts.error().message}});
        continue;
      }
      for (const pcie::AerCount& c : *counts) {
        const std::string key = std::string(f.aer_class) + "/" + c.error;
        auto it = fn.aer_labels.find(key);
        if (it == fn.aer_labels.end()) {
          it = fn.aer_labels
                   .emplace(key, fn.labels->With({{"class", f.aer_class},
                                                  {"error", c.error}}))
                   .first;
        }
        out.Add(fam::kPcieAerErrors, it->second, static_cast<double>(c.count));
      }
    }
  }

  std::string sysfs_;
  host::ModelView model_;
  std::map<std::string, Function, std::less<>> fns_;  // by device name
  host::GenerationGate pruned_;
  LogOnce log_{"pcie"};
};

}  // namespace

std::unique_ptr<Collector> MakePcieCollector(
    std::string sysfs, std::shared_ptr<host::HostModel> model) {
  return std::make_unique<PcieCollector>(std::move(sysfs), std::move(model));
}

CollectorSpec MakePcieCollectorSpec() {
  CollectorSpec s;
  s.name = "pcie";
  s.help =
      "PCIe link health of every RDMA device's PCI function (PF or VF): "
      "negotiated against maximum link speed and width, a downtrained flag, "
      "and AER correctable/non-fatal/fatal error counters by type, from "
      "/sys/bus/pci/devices/<bdf>.";
  s.default_enabled = true;
  s.families.assign(std::begin(kFamilies), std::end(kFamilies));
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    return MakePcieCollector(args.paths.sysfs,
                             args.shared ? args.shared->host : nullptr);
  };
  return s;
}

}  // namespace rnic
