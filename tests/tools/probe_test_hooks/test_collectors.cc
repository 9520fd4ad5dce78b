#include "tests/tools/probe_test_hooks/test_collectors.h"

#include <yaml-cpp/yaml.h>

#include "collectors/probe/probe_collector.h"
#include "tests/tools/probe_test_hooks/cq_overrun.h"

namespace rnic::test_hooks {
namespace {

constexpr char kKey[] = "test_cq_overrun";

struct HookedSection {
  bool overrun = false;  // test_cq_overrun
  YAML::Node section;  // the rest, for the shipped parser
};

// The test key is taken out; the rest goes through the shipped parser, so
// the test build's schema is the shipped one plus this key.
Result<HookedSection> TakeHookKey(const YAML::Node& config) {
  HookedSection out{false, YAML::Clone(config)};
  if (out.section.IsMap()) {
    const YAML::Node& view = out.section;
    if (const YAML::Node n = view[kKey]) {
      if (!n.IsScalar() || !(n.Scalar() == "true" || n.Scalar() == "false")) {
        return Error{std::string("probe.") + kKey + ": must be true or false"};
      }
      out.overrun = n.Scalar() == "true";
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
      *cfg, h->overrun ? CqOverrunHook() : nullptr);
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
