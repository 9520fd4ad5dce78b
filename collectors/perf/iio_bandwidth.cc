#include "collectors/perf/iio_bandwidth.h"

#include <spdlog/common.h>

#include <algorithm>
#include <utility>

#include "collectors/perf/iio_families.h"
#include "collectors/perf/pmu_catalog.h"

namespace rnic::perf {

void IioBandwidth::Update(const host::Snapshot& snap) {
  if (snap.generation == generation_) return;
  generation_ = snap.generation;
  // Read again only now: a stack's die file is fixed while the host runs,
  // but the PMU driver may have come or gone with the devices.
  const std::vector<IioStack> stacks = ListIioStacks(sysfs_);
  std::vector<RdmaFunction> functions;
  for (const auto& d : snap.devices) {
    if (!d->pci_address.empty()) {
      functions.push_back({d->name, d->pci_address, d->pci_root_bus});
    }
  }
  const std::vector<StackUse> uses = MapFunctions(stacks, functions);

  std::vector<OpenStack> kept;
  info_.clear();
  for (const StackUse& u : uses) {
    const std::string& reporter = u.functions.front().device;
    for (const RdmaFunction& f : u.functions) {
      info_.push_back(LabelSet::Make({{"device", f.device},
                                      {"pci", f.pci},
                                      {"root_bus", f.root_bus},
                                      {"pmu", u.stack.pmu()},
                                      {"die", std::to_string(u.stack.die)},
                                      {"reported_as", reporter}}));
    }
    // A stack in use before keeps its counters (a rename, a second device
    // on it); only its labels follow the reporting device's name.
    auto it = std::find_if(stacks_.begin(), stacks_.end(), [&](const auto& s) {
      return s.index == u.stack.index && s.die == u.stack.die;
    });
    if (it != stacks_.end()) {
      if (it->reporter != reporter) Label(*it, reporter);
      kept.push_back(std::move(*it));
      stacks_.erase(it);
      continue;
    }
    OpenStack s;
    if (Open(u.stack, reporter, s)) kept.push_back(std::move(s));
  }
  // What is left in stacks_ no device uses: closed here (the counters' file
  // descriptors with them); their log keys re-armed.
  for (const OpenStack& gone : stacks_) {
    log_.ClearIf([&](const std::string& k) { return k == gone.key; });
  }
  stacks_ = std::move(kept);

  if (uses.empty()) {
    log_.Log(spdlog::level::info, "iio/mapping",
             "no RDMA PCI function on a mapped IIO stack "
             "(uncore_iio_*/die*): no rnic_pcie_iio_* series",
             {{"stacks", std::to_string(stacks.size())},
              {"functions", std::to_string(functions.size())}});
  } else {
    log_.Clear("iio/mapping");
  }
}

void IioBandwidth::Label(OpenStack& s, const std::string& reporter) {
  s.reporter = reporter;
  s.in_labels = LabelSet::Make({{"device", reporter}, {"direction", "in"}});
  s.out_labels = LabelSet::Make({{"device", reporter}, {"direction", "out"}});
}

bool IioBandwidth::Open(const IioStack& stack, const std::string& reporter,
                        OpenStack& into) {
  const std::string pmu_name = stack.free_running_pmu();
  const std::string open_key =
      "iio/" + pmu_name + "/" + std::to_string(stack.die) + "/open";
  auto fail = [&](const std::string& why, long err) {
    // Tried again at the next change of the host model, logged once.
    log_.Log(spdlog::level::warn, open_key,
             "IIO bandwidth unavailable: no rnic_pcie_iio_bytes_total",
             {{"pmu", pmu_name}, {"device", reporter}, {"err", why}}, err);
    return false;
  };
  auto pmu = LoadPmu(sysfs_, pmu_name);
  if (!pmu.ok()) return fail(pmu.error().message, pmu.error().errno_value);
  auto events = BandwidthEvents(*pmu);
  if (!events.ok()) return fail(events.error().message, EINVAL);
  if (events->empty()) return fail("no bw_in_port*/bw_out_port* events", 0);
  // The PMU's cpumask lists one CPU per die; the stack's die picks it.
  const int cpu = static_cast<std::size_t>(stack.die) < pmu->cpus.size()
                      ? pmu->cpus[stack.die]
                      : (pmu->cpus.empty() ? 0 : pmu->cpus.front());
  into.index = stack.index;
  into.die = stack.die;
  for (const BandwidthEvent& ev : *events) {
    auto enc = EncodeEvent(*pmu, ev.name);
    if (!enc.ok()) return fail(ev.name + ": " + enc.error().message, EINVAL);
    auto ctr = open_(pmu->type, *enc, cpu);
    if (!ctr.ok()) {
      return fail(ev.name + ": " + ctr.error().message,
                  ctr.error().errno_value);
    }
    into.counters.push_back(Counter{std::move(ctr).value(), ev.bytes_per_count,
                                    ev.direction == "in"});
  }
  log_.Clear(open_key);
  Label(into, reporter);
  into.key = "iio/" + pmu_name + "/" + std::to_string(stack.die);
  return true;
}

void IioBandwidth::Collect(MetricSet& out) {
  for (const auto& labels : info_) {
    out.Add(families::kIioStackInfo, labels, 1);
  }
  for (const OpenStack& s : stacks_) {
    double in = 0, out_bytes = 0;
    bool ok = true;
    for (const Counter& c : s.counters) {
      auto v = c.counter.Read();
      if (!v.ok()) {
        log_.Log(spdlog::level::warn, s.key, "IIO bandwidth read failed",
                 v.error());
        ok = false;
        break;
      }
      (c.in ? in : out_bytes) += *v * c.bytes_per_count;
    }
    if (!ok) continue;
    log_.Clear(s.key);
    out.Add(families::kIioBytes, s.in_labels, in);
    out.Add(families::kIioBytes, s.out_labels, out_bytes);
  }
}

}  // namespace rnic::perf
