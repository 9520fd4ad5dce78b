#include "collectors/health/carrier_collector.h"

#include <spdlog/spdlog.h>

#include <map>
#include <set>
#include <utility>

#include "collectors/common/log_once.h"
#include "collectors/health/health_families.h"
#include "collectors/model/sysfs_parse.h"
#include "collectors/roce/host_facts.h"

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
      : sysfs_(std::move(sysfs)), model_(std::move(model)) {
    if (!model_) {
      model_ =
          std::make_shared<host::HostModel>(host::HostModel::Options{sysfs_});
      own_model_ = true;
    }
  }

  Status Collect(const ScrapeContext& ctx, MetricSet& out) override {
    const auto snap = own_model_ ? model_->Refresh() : model_->Current();
    std::set<std::string, std::less<>> alive;
    for (const auto& devp : snap->devices) {
      for (const host::Port& p : devp->ports) {
        if (p.netdev.empty()) continue;
        const std::string key = devp->name + "/" + p.label;
        alive.insert(key);
        if (ctx.Expired()) continue;
        PortState& ps = ports_[key];
        if (ps.netdev != p.netdev || !ps.labels) {
          ps.netdev = p.netdev;
          ps.labels = p.labels->With({{"netdev", p.netdev}});
        }
        const std::string dir = sysfs_ + "/class/net/" + p.netdev + "/";
        for (const CarrierFile& f : kFiles) Read(ps, dir, f, out);
      }
    }
    std::erase_if(ports_,
                  [&](const auto& kv) { return !alive.contains(kv.first); });
    return Status::Ok();
  }

 private:
  struct PortState {
    std::string netdev;
    LabelSetPtr labels;  // device, port, netdev
  };

  void Read(const PortState& ps, const std::string& dir, const CarrierFile& f,
            MetricSet& out) {
    const std::string key = ps.netdev + "/" + f.file;
    auto text = ReadTrimmed(dir + f.file);
    if (!text.ok()) {
      // Absent on kernels before 4.16 (the counts) and on a netdev that just
      // went away: said once, at debug.
      const int err = text.error().errno_value;
      log_.Log(err == ENOENT ? spdlog::level::debug : spdlog::level::warn, key,
               "value skipped", text.error());
      return;
    }
    // carrier_changes of a netdev that is down reads EINVAL on some kernels;
    // a value that is not a number is skipped the same way.
    const auto v = sysfs::ParseCounterValue(*text);
    if (v.status != sysfs::ValueStatus::kOk) {
      log_.Log(spdlog::level::warn, key, "unparsable carrier count, skipped",
               {{"netdev", ps.netdev}, {"file", f.file}, {"text", *text}});
      return;
    }
    log_.Clear(key);
    out.Add(*f.family, ps.labels, static_cast<double>(v.value));
  }

  std::string sysfs_;
  std::shared_ptr<host::HostModel> model_;
  bool own_model_ = false;
  std::map<std::string, PortState, std::less<>> ports_;  // "device/port"
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
