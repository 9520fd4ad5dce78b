#include "collectors/health/carrier_collector.h"

#include <spdlog/spdlog.h>

#include <map>
#include <set>
#include <utility>

#include "collectors/common/cached_fd.h"
#include "collectors/common/log_once.h"
#include "collectors/health/health_families.h"
#include "collectors/host/model_view.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic {
namespace {

namespace fam = families;

constexpr const FamilyDesc* kFamilies[] = {
    &fam::kCarrierChanges,
    &fam::kCarrierUp,
    &fam::kCarrierDown,
};

struct CarrierFile {
  const char* file;
  const FamilyDesc* family;
};
constexpr CarrierFile kFiles[] = {
    {"carrier_changes", &fam::kCarrierChanges},
    {"carrier_up_count", &fam::kCarrierUp},
    {"carrier_down_count", &fam::kCarrierDown},
};

class CarrierCollector final : public Collector {
 public:
  CarrierCollector(std::string sysfs, std::shared_ptr<host::HostModel> model)
      : sysfs_(std::move(sysfs)),
        model_(std::move(model), host::HostModel::Options{sysfs_}) {}

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    const auto snap = model_.Get();
    for (const auto& devp : snap->devices) {
      for (const host::Port& p : devp->ports) {
        if (p.netdev.empty() || !p.netdev_visible) continue;
        if (ctx.Expired()) break;
        key_.assign(devp->name).append("/").append(p.label);
        auto it = ports_.find(key_);
        if (it == ports_.end()) it = ports_.emplace(key_, PortState{}).first;
        PortState& ps = it->second;
        if (ps.netdev != p.netdev || !ps.labels) {
          // New port, or its netdev renamed: new labels, files opened anew.
          ps = PortState{};
          ps.netdev = p.netdev;
          ps.labels = p.labels->With({{"netdev", p.netdev}});
          for (std::size_t i = 0; i < std::size(kFiles); ++i) {
            ps.files[i].path =
                sysfs_ + "/class/net/" + p.netdev + "/" + kFiles[i].file;
          }
        }
        for (std::size_t i = 0; i < std::size(kFiles); ++i) {
          Read(ps, ps.files[i], kFiles[i], out);
        }
      }
    }
    // Ports the model no longer has leave no state behind (looked at only
    // when the model changed).
    if (!pruned_.Changed(*snap)) return Status::Ok();
    std::set<std::string, std::less<>> alive;
    for (const auto& devp : snap->devices) {
      for (const host::Port& p : devp->ports) {
        if (!p.netdev.empty() && p.netdev_visible) {
          alive.insert(devp->name + "/" + p.label);
        }
      }
    }
    std::erase_if(ports_,
                  [&](const auto& kv) { return !alive.contains(kv.first); });
    return Status::Ok();
  }

 private:
  struct File {
    std::string path;
    CachedFd fd;  // held across scrapes: one pread per value
    bool logged = false;
  };
  struct PortState {
    std::string netdev;
    LabelSetPtr labels;  // device, port, netdev
    File files[std::size(kFiles)];
  };

  void Read(const PortState& ps, File& file, const CarrierFile& f,
            MetricSet& out) {
    char buf[64];
    const long n = file.fd.ReadFile(file.path.c_str(), buf, sizeof(buf) - 1);
    if (n < 0) {
      // Absent on kernels before 4.16 (the counts) and on a netdev that just
      // went away: said once, at debug. carrier_changes of a netdev that is
      // down reads EINVAL on some kernels.
      const int err = static_cast<int>(-n);
      log_.Log(err == ENOENT ? spdlog::level::debug : spdlog::level::warn,
               ps.netdev + "/" + f.file, "value skipped",
               Error{"read " + file.path, err});
      file.logged = true;
      return;
    }
    const auto v = sysfs::ParseCounterValue(
        sysfs::TrimValue(std::string_view(buf, static_cast<std::size_t>(n))));
    if (v.status != sysfs::ValueStatus::kOk) {
      log_.Log(spdlog::level::warn, ps.netdev + "/" + f.file,
               "unparsable carrier count, skipped",
               {{"netdev", ps.netdev},
                {"file", f.file},
                {"text", std::string(buf, static_cast<std::size_t>(n))}});
      file.logged = true;
      return;
    }
    if (file.logged) {
      log_.Clear(ps.netdev + "/" + f.file);
      file.logged = false;
    }
    out.Add(*f.family, ps.labels, static_cast<double>(v.value));
  }

  std::string sysfs_;
  host::ModelView model_;
  std::map<std::string, PortState, std::less<>> ports_;  // "device/port"
  std::string key_;  // the lookup key, kept to reuse its buffer
  host::GenerationGate pruned_;
  LogOnce log_{"carrier"};
};

}  // namespace

std::unique_ptr<Collector> MakeCarrierCollector(
    std::string sysfs, std::shared_ptr<host::HostModel> model) {
  return std::make_unique<CarrierCollector>(std::move(sysfs), std::move(model));
}

CollectorSpec MakeCarrierCollectorSpec() {
  CollectorSpec s;
  s.name = "carrier";
  s.help =
      "Link stability of the netdev of every RDMA port that has one: carrier "
      "changes (flaps) and carrier up/down counts from "
      "/sys/class/net/<netdev>.";
  s.default_enabled = true;
  s.families.assign(std::begin(kFamilies), std::end(kFamilies));
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    return MakeCarrierCollector(args.paths.sysfs,
                                args.shared ? args.shared->host : nullptr);
  };
  return s;
}

}  // namespace rnic
