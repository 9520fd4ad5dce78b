#include "collectors/perf/perf_collector.h"

#include <spdlog/common.h>

#include <cmath>
#include <optional>

#include "collectors/common/config_schema.h"
#include "collectors/common/log_once.h"
#include "collectors/common/range_list.h"
#include "collectors/host/model_view.h"
#include "collectors/perf/iio_bandwidth.h"
#include "collectors/perf/iio_families.h"
#include "collectors/perf/perf_counter.h"
#include "collectors/perf/pmu_catalog.h"

namespace rnic {
namespace {

using prometheus::MetricType;

// Families, declared once (collectors/metrics/family.h).
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

// "cpus: [0, 2]" or a kernel CPU list "cpus: 0-3,8".
config::Value<std::vector<int>> Cpus() {
  config::Value<std::vector<int>> v;
  v.doc = {"CPU list", "", {}, false};
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::vector<int>> {
    const Error bad{where + ": must be a list of CPUs or a CPU list (0-3,8)"};
    if (n.IsScalar()) {
      auto cpus = ParseCpuList(n.Scalar());
      if (!cpus.ok()) return bad;
      return cpus;
    }
    if (!n.IsSequence()) return bad;
    std::vector<int> out;
    for (const auto& cpu : n) {
      int c = -1;
      try {
        if (cpu.IsScalar()) c = cpu.as<int>();
      } catch (const YAML::Exception&) {
        c = -1;
      }
      if (c < 0) return bad;
      out.push_back(c);
    }
    return out;
  };
  v.show = [](const std::vector<int>&) { return std::string(); };
  return v;
}

// A finite number > 0.
config::Value<std::optional<double>> Scale() {
  config::Value<std::optional<double>> v;
  v.doc = {"number", "> 0", {}, false};
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::optional<double>> {
    double d = 0;
    try {
      if (n.IsScalar()) d = n.as<double>();
    } catch (const YAML::Exception&) {
      d = 0;
    }
    if (!std::isfinite(d) || d <= 0) {
      return Error{where + ": must be a finite number > 0"};
    }
    return std::optional<double>(d);
  };
  v.show = [](const std::optional<double>&) { return std::string(); };
  return v;
}

struct PerfConfig {
  std::vector<EventConfig> events;
};

// The `perf:` keys, each declared once (collectors/common/config_schema.h).
const config::Section<PerfConfig>& Schema() {
  static const config::Section<PerfConfig> section = [] {
    using E = EventConfig;
    config::MapSchema<E> e;
    e.Key("pmu", &E::pmu, config::NonEmptyString(),
          "PMU name under /sys/bus/event_source/devices")
        .Required("a pmu");
    e.Key("event", &E::event, config::NonEmptyString(),
          "an event of the PMU's events/ or raw terms "
          "(`event=0x83,umask=0x04`)")
        .Required("an event");
    e.Key("name", &E::label, config::NonEmptyString(),
          "value of the `event` label")
        .Default("the event");
    e.Key("scale", &E::scale, Scale(),
          "multiplier of the count; unset: the event's sysfs scale, else 1");
    e.Key("cpus", &E::cpus, Cpus(),
          "CPUs to open the event on, `[0, 2]` or `0-3,8`; unset: the "
          "PMU's cpumask, else CPU 0");
    e.Then([](E& c, const std::string&) -> Status {
      if (c.label.empty()) c.label = c.event;
      return Status::Ok();
    });
    config::MapSchema<PerfConfig> s;
    s.Key("events", &PerfConfig::events,
          config::List(config::Map(std::move(e))), "PMU events to count");
    return config::Section<PerfConfig>{"perf",
                                       "PMU events (`--collector.perf`); "
                                       "[details](collectors/perf/README.md).",
                                       config::Map(std::move(s))};
  }();
  return section;
}

Result<std::vector<EventConfig>> ParseConfig(const YAML::Node& node) {
  auto c = Schema().Parse(node);
  if (!c) return c.error();
  return std::move(c->events);
}

class PerfCollector final : public Collector {
 public:
  PerfCollector(std::string sysfs, std::vector<EventConfig> configs,
                std::shared_ptr<host::HostModel> host, bool iio)
      : sysfs_(std::move(sysfs)),
        configs_(std::move(configs)),
        host_(std::move(host), host::HostModel::Options{sysfs_, nullptr}) {
    for (const auto& c : configs_) OpenOne(c);
    if (iio) {
      iio_.emplace(sysfs_, PerfCounter::Open, log_);
      iio_->Update(*host_.Get());  // opened at start-up, as events are
    }
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
    if (iio_) {
      iio_->Update(*host_.Get());
      iio_->Collect(out);
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
  host::ModelView host_;
  std::vector<OpenEvent> open_;
  std::map<std::pair<std::string, std::string>, std::string> failed_;
  LogOnce log_{"perf"};
  std::optional<perf::IioBandwidth> iio_;  // after log_, which it uses
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
  s.families = {&kEvents, &kUnavailable, &perf::families::kIioBytes,
                &perf::families::kIioStackInfo};
  s.options = {BoolOption(
      "iio",
      "PCIe bandwidth per RDMA device from the Intel uncore IIO free-running "
      "counters of its root complex, found through the kernel's "
      "uncore_iio_*/die* mapping (no configuration needed)",
      true)};
  s.check_config = CheckWith(ParseConfig);
  s.config_doc = Schema().Doc();
  s.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto cfg = ParseConfig(args.config);
    if (!cfg.ok()) return cfg.error();
    if (cfg->empty() && !args.Bool("iio")) {
      LogEvent(spdlog::level::warn, "perf",
               "no events configured (perf.events in --config.file)", {});
    }
    return std::unique_ptr<Collector>(std::make_unique<PerfCollector>(
        args.paths.sysfs, std::move(cfg).value(),
        args.shared ? args.shared->host : nullptr, args.Bool("iio")));
  };
  return s;
}

}  // namespace rnic
