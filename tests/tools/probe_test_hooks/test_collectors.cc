#include "tests/tools/probe_test_hooks/test_collectors.h"

#include <yaml-cpp/yaml.h>

#include "collectors/probe/probe_collector.h"
#include "tests/tools/probe_test_hooks/cq_overrun.h"

namespace rnic::test_hooks {
namespace {

constexpr char kKey[] = "test_cq_overrun_writes";

Result<std::unique_ptr<Collector>> ProbeWithHooks(const CollectorArgs& args) {
  // The test key is taken out; the rest goes through the shipped parser,
  // so the test build's schema is the shipped one plus this key.
  YAML::Node section = YAML::Clone(args.config);
  int writes = 0;
  if (section.IsMap()) {
    const YAML::Node& view = section;
    if (const YAML::Node n = view[kKey]) {
      try {
        writes = n.as<int>();
      } catch (const YAML::Exception&) {
        writes = -1;
      }
      if (writes < 1 || writes > 1024) {
        return Error{std::string("probe.") + kKey +
                     ": must be an integer from 1 to 1024"};
      }
      section.remove(kKey);
    }
  }
  auto cfg = probe::ParseProbeConfig(section);
  if (!cfg) return cfg.error();
  return probe::MakeProbeCollector(
      *cfg, writes > 0 ? CqOverrunHook(writes) : nullptr);
}

}  // namespace

const std::vector<CollectorSpec>& TestCollectors() {
  static const std::vector<CollectorSpec> specs = [] {
    std::vector<CollectorSpec> s = AllCollectors();
    for (auto& spec : s) {
      if (spec.name == "probe") spec.factory = ProbeWithHooks;
    }
    return s;
  }();
  return specs;
}

}  // namespace rnic::test_hooks
