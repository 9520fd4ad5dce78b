#include "tests/tools/probe_test_hooks/test_collectors.h"

#include <yaml-cpp/yaml.h>

#include "collectors/probe/probe_collector.h"
#include "tests/tools/probe_test_hooks/cq_overrun.h"

namespace rnic::test_hooks {
namespace {

constexpr char kKey[] = "test_cq_overrun_writes";

struct HookedSection {
  int writes = 0;      // test_cq_overrun_writes, 0: not given
  YAML::Node section;  // the rest, for the shipped parser
};

// The test key is taken out; the rest goes through the shipped parser, so
// the test build's schema is the shipped one plus this key.
Result<HookedSection> TakeHookKey(const YAML::Node& config) {
  HookedSection out{0, YAML::Clone(config)};
  if (out.section.IsMap()) {
    const YAML::Node& view = out.section;
    if (const YAML::Node n = view[kKey]) {
      try {
        out.writes = n.as<int>();
      } catch (const YAML::Exception&) {
        out.writes = -1;
      }
      if (out.writes < 1 || out.writes > 1024) {
        return Error{std::string("probe.") + kKey +
                     ": must be an integer from 1 to 1024"};
      }
      out.section.remove(kKey);
    }
  }
  return out;
}

Result<probe::ProbeConfig> ParseHooked(const YAML::Node& config) {
  auto h = TakeHookKey(config);
  if (!h) return h.error();
  return probe::ParseProbeConfig(h->section);
}

Result<std::unique_ptr<Collector>> ProbeWithHooks(const CollectorArgs& args) {
  auto h = TakeHookKey(args.config);
  if (!h) return h.error();
  auto cfg = probe::ParseProbeConfig(h->section);
  if (!cfg) return cfg.error();
  return probe::MakeProbeCollector(
      *cfg, h->writes > 0 ? CqOverrunHook(h->writes) : nullptr);
}

}  // namespace

const std::vector<CollectorSpec>& TestCollectors() {
  static const std::vector<CollectorSpec> specs = [] {
    std::vector<CollectorSpec> s = AllCollectors();
    for (auto& spec : s) {
      if (spec.name != "probe") continue;
      spec.factory = ProbeWithHooks;
      spec.check_config = CheckWith(ParseHooked);
    }
    return s;
  }();
  return specs;
}

}  // namespace rnic::test_hooks
