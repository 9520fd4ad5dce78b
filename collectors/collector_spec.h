// The table of collectors the exporter knows: name, default state, options
// (become --collector.<name>.<option> flags) and a factory. Adding a collector
// means adding one entry in collectors/all_collectors.cc.
#pragma once

#include <yaml-cpp/yaml.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/collector_options.h"
#include "collectors/common/config_schema.h"
#include "collectors/common/result.h"
#include "collectors/host/host_model.h"
#include "collectors/http_endpoints.h"
#include "collectors/metrics/family.h"
#include "collectors/module_faults.h"

namespace rnic {

struct Paths {
  std::string sysfs = "/sys";
  std::string procfs = "/proc";
  std::string devkmsg = "/dev/kmsg";
};

// Facts collectors share at start-up. Factories run in table order.
struct SharedFacts {
  // Set by netlink_stat when STAT_GET works: sysfs then leaves hw_counters/
  // to it, so no counter is exported twice.
  std::atomic<bool> netlink_hw_counters{false};
  // Set by netlink_stat when PORT_GET works: it then exports rnic_port_state
  // and rnic_port_physical_state and sysfs does not.
  std::atomic<bool> netlink_port_state{false};
  // The host model every collector reads; the runner refreshes it before
  // each scrape. Null when a collector is built alone (tests): it then keeps
  // and refreshes a model of its own.
  std::shared_ptr<host::HostModel> host;
  // Module lane faults: published by ethtool (module reads), judged by
  // port_health.
  std::shared_ptr<ModuleFaultBoard> module_faults =
      std::make_shared<ModuleFaultBoard>();
  // HTTP endpoints collectors serve besides /metrics (fabric: /probe).
  std::shared_ptr<EndpointTable> endpoints = std::make_shared<EndpointTable>();
};

struct CollectorArgs {
  Paths paths;
  OptionValues options;  // every OptionSpec, parsed, defaults filled
  YAML::Node config;     // this collector's section of --config.file (or null)
  std::shared_ptr<SharedFacts> shared;

  // The collector's typed options (see OptionValues).
  [[nodiscard]] bool Bool(const std::string& name) const {
    return options.Bool(name);
  }
  [[nodiscard]] std::int64_t Int(const std::string& name) const {
    return options.Int(name);
  }
  [[nodiscard]] std::chrono::milliseconds Duration(
      const std::string& name) const {
    return options.Duration(name);
  }
  [[nodiscard]] const CompiledRegex& Regex(const std::string& name) const {
    return options.Regex(name);
  }
  [[nodiscard]] const std::string& String(const std::string& name) const {
    return options.String(name);
  }
};

using CollectorFactory =
    std::function<Result<std::unique_ptr<Collector>>(const CollectorArgs&)>;
// Checks a collector's --config.file section without side effects.
using ConfigCheck = std::function<Status(const YAML::Node&)>;

// A ConfigCheck from a section parser (Result<T>(const YAML::Node&)).
template <typename Parse>
[[nodiscard]] ConfigCheck CheckWith(Parse parse) {
  return [parse](const YAML::Node& node) -> Status {
    auto r = parse(node);
    if (!r.ok()) return r.error();
    return Status::Ok();
  };
}

struct CollectorSpec {
  std::string name;
  std::string help;
  bool default_enabled = true;
  std::vector<OptionSpec> options;
  // Every family the collector may emit, declared once (see
  // collectors/metrics/family.h): the docs binary, the README table, the
  // output checks and the dashboard lint read this list.
  std::vector<const FamilyDesc*> families;
  CollectorFactory factory;
  // Run on the collector's section at start-up, whether the collector is
  // enabled or not, so a typo in a disabled section is refused too. Unset:
  // the collector has no section, and a non-empty one is an error.
  ConfigCheck check_config;
  // The declaration check_config parses with (collectors/common/
  // config_schema.h), as the configuration reference shows it; set
  // together with check_config.
  std::optional<config::SectionDoc> config_doc;

  // Every option parsed: `given` (option name -> flag text) over the defaults.
  [[nodiscard]] Result<OptionValues> ParseOptions(
      const std::map<std::string, std::string>& given = {}) const;
};

// The exporter's host model: sysfs under paths.sysfs, device indices from
// RDMA netlink.
[[nodiscard]] std::shared_ptr<host::HostModel> MakeHostModel(
    const Paths& paths);

// Every collector compiled in, in the order they are constructed.
[[nodiscard]] const std::vector<CollectorSpec>& AllCollectors();

}  // namespace rnic
