#include "collectors/perf/perf_collector.h"

#include <spdlog/common.h>

#include <optional>

#include "collectors/common/log_once.h"
#include "collectors/perf/perf_counter.h"
#include "collectors/perf/pmu_catalog.h"

namespace rnic {
namespace {

using prometheus::MetricType;

// Families, declared once (collectors/model/family.h).
constexpr FamilyDesc kEvents{
    "rnic_perf_events_total", MetricType::Counter, "pmu,event,cpu",
    "Count of a hardware PMU event since the exporter opened it, multiplied "
    "by the event's scale (sysfs <event>.scale or the config's scale)."};
constexpr FamilyDesc kUnavailable{
    "rnic_perf_event_unavailable", MetricType::Gauge, "pmu,event",
    "1 for a configured PMU event that could not be opened; the reason is "
    "logged once at start-up."};

struct EventConfig {
  std::string pmu;
  std::string event;  // name in the PMU's events/ or raw terms
  std::string label;  // value of the `event` label
  std::optional<double> scale;
  std::vector<int> cpus;  // empty: the PMU's cpumask, else CPU 0
};

struct OpenEvent {
  EventConfig cfg;
  double scale = 1.0;
  int cpu = 0;
  PerfCounter counter;
  LabelSetPtr labels;  // pmu, event, cpu: built once at open
};

Result<std::vector<EventConfig>> ParseConfig(const YAML::Node& node) {
  std::vector<EventConfig> out;
  if (!node || node.IsNull()) return out;
  if (!node.IsMap()) return Error{"perf: must be a map with key 'events'"};
  for (const auto& kv : node) {
    // as<std::string>() throws on a list or map key ("[a, b]: 1").
    if (!kv.first.IsScalar())
      return Error{"perf: a key must be a name, not a list or a map"};
    if (kv.first.as<std::string>() != "events") {
      return Error{"perf: unknown key '" + kv.first.as<std::string>() + "'"};
    }
  }
  const YAML::Node events = node["events"];
  if (!events) return out;
  if (!events.IsSequence()) return Error{"perf.events: must be a list"};
  int i = 0;
  for (const auto& e : events) {
    const std::string where = "perf.events[" + std::to_string(i++) + "]";
    if (!e.IsMap()) return Error{where + ": must be a map"};
    EventConfig c;
    try {
      for (const auto& kv : e) {
        const std::string k = kv.first.as<std::string>();
        if (k == "pmu") {
          c.pmu = kv.second.as<std::string>();
        } else if (k == "event") {
          c.event = kv.second.as<std::string>();
        } else if (k == "name") {
          c.label = kv.second.as<std::string>();
        } else if (k == "scale") {
          c.scale = kv.second.as<double>();
        } else if (k == "cpus") {
          for (const auto& cpu : kv.second) c.cpus.push_back(cpu.as<int>());
        } else {
          return Error{where + ": unknown key '" + k + "'"};
        }
      }
    } catch (const YAML::Exception& ex) {
      return Error{where + ": " + ex.what()};
    }
    if (c.pmu.empty() || c.event.empty())
      return Error{where + ": needs 'pmu' and 'event'"};
    if (c.label.empty()) c.label = c.event;
    out.push_back(std::move(c));
  }
  return out;
}

class PerfCollector final : public Collector {
 public:
  PerfCollector(std::string sysfs, std::vector<EventConfig> configs)
      : sysfs_(std::move(sysfs)), configs_(std::move(configs)) {
    for (const auto& c : configs_) OpenOne(c);
  }

  Status Collect(const ScrapeContext&, MetricSet& out) override {
    for (const auto& e : open_) {
      auto v = e.counter.Read();
      const std::string key =
          e.cfg.pmu + "/" + e.cfg.label + "/" + std::to_string(e.cpu);
      if (!v.ok()) {
        // Once per event and errno, not at every scrape.
        const std::string err = v.error().ToString();
        const std::string cpu = std::to_string(e.cpu);
        log_.Log(spdlog::level::warn, key, "read failed",
                 {{"pmu", e.cfg.pmu},
                  {"event", e.cfg.label},
                  {"cpu", cpu},
                  {"err", err}},
                 v.error().errno_value);
        continue;
      }
      log_.Clear(key);
      out.Add(kEvents, e.labels, *v * e.scale);
    }
    for (const auto& [key, why] : failed_) {
      out.Add(kUnavailable, {{"pmu", key.first}, {"event", key.second}}, 1);
    }
    return Status::Ok();
  }

 private:
  void OpenOne(const EventConfig& c) {
    auto fail = [&](const std::string& why) {
      // A missing PMU costs that one event, never the collector.
      LogEvent(spdlog::level::warn, "perf", "event unavailable",
               {{"pmu", c.pmu}, {"event", c.label}, {"err", why}});
      failed_.emplace(std::make_pair(c.pmu, c.label), why);
    };
    auto pmu = LoadPmu(sysfs_, c.pmu);
    if (!pmu.ok()) return fail(pmu.error().message);
    auto enc = EncodeEvent(*pmu, c.event);
    if (!enc.ok()) return fail(enc.error().message);
    std::vector<int> cpus = c.cpus;
    if (cpus.empty())
      cpus = pmu->cpus.empty() ? std::vector<int>{0} : pmu->cpus;
    for (int cpu : cpus) {
      auto ctr = PerfCounter::Open(pmu->type, *enc, cpu);
      if (!ctr.ok()) return fail(ctr.error().message);
      open_.push_back(OpenEvent{
          c, c.scale.value_or(enc->scale), cpu, std::move(ctr).value(),
          LabelSet::Make({{"pmu", c.pmu},
                          {"event", c.label},
                          {"cpu", std::to_string(cpu)}})});
    }
  }

  std::string sysfs_;
  std::vector<EventConfig> configs_;
  std::vector<OpenEvent> open_;
  std::map<std::pair<std::string, std::string>, std::string> failed_;
  LogOnce log_{"perf"};
};

}  // namespace

CollectorSpec MakePerfCollectorSpec() {
  CollectorSpec s;
  s.name = "perf";
  s.help =
      "Hardware PMU events (e.g. PCIe bytes of the NIC's root port from "
      "uncore_iio, NIC PMUs) "
      "via perf_event_open, encoded from the PMUs' sysfs format/ and events/ "
      "files; events come "
      "from the `perf:` section of --config.file. Needs CAP_PERFMON.";
  s.default_enabled = false;
  s.families = {&kEvents, &kUnavailable};
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto cfg = ParseConfig(args.config);
    if (!cfg.ok()) return cfg.error();
    if (cfg->empty()) {
      LogEvent(spdlog::level::warn, "perf",
               "no events configured (perf.events in --config.file)", {});
    }
    return std::unique_ptr<Collector>(std::make_unique<PerfCollector>(
        args.paths.sysfs, std::move(cfg).value()));
  };
  return s;
}

}  // namespace rnic
