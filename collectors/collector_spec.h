// The table of collectors the exporter knows: name, default state, options
// (become --collector.<name>.<option> flags) and a factory. Adding a collector
// means adding one entry in collectors/all_collectors.cc.
#pragma once

#include <yaml-cpp/yaml.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/common/result.h"

namespace rnic {

struct OptionSpec {
  std::string name;  // flag is --collector.<collector>.<name>
  std::string help;
  std::string default_value;
};

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
};

struct CollectorArgs {
  Paths paths;
  std::map<std::string, std::string>
      options;        // every OptionSpec, defaults filled
  YAML::Node config;  // this collector's section of --config.file (may be null)
  std::shared_ptr<SharedFacts> shared;

  [[nodiscard]] const std::string& Option(const std::string& name) const;
};

using CollectorFactory =
    std::function<Result<std::unique_ptr<Collector>>(const CollectorArgs&)>;

// One exported family, for the README's metrics reference (a unit test keeps
// the README table and these lists equal) and for the output check (every
// family a collector emits must match one of its docs). A name may hold one
// placeholder in angle brackets, e.g. "rnic_hw_<counter>_total".
struct MetricDoc {
  std::string name;
  std::string type;    // counter | gauge | histogram
  std::string labels;  // comma-separated, e.g. "device,port"
  std::string help;
};

struct CollectorSpec {
  std::string name;
  std::string help;
  bool default_enabled = true;
  std::vector<OptionSpec> options;
  std::vector<MetricDoc> metrics;
  CollectorFactory factory;
};

// Every collector compiled in, in the order they are constructed.
[[nodiscard]] const std::vector<CollectorSpec>& AllCollectors();

}  // namespace rnic
