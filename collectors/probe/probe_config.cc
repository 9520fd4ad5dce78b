#include "collectors/probe/probe_config.h"

#include <algorithm>

#include "collectors/probing/probe_knobs.h"

namespace rnic::probe {
namespace {

constexpr std::uint32_t kMaxMessage = 1u << 20;
constexpr std::uint64_t kMaxMr = 1ull << 30;

// The `probe:` keys, each declared once (collectors/common/config_schema.h).
const config::Section<ProbeConfig>& Schema() {
  static const config::Section<ProbeConfig> section = [] {
    using C = ProbeConfig;
    using std::chrono::milliseconds;
    config::MapSchema<C> s;
    s.Key(knobs::Enabled(), &C::enabled);
    s.Key("devices", &C::devices, config::StringList(),
          "RDMA device names; empty: every device");
    s.Key("ports", &C::ports, config::List(config::Int<int>(1, 255)),
          "port numbers; empty: every port");
    s.Key(knobs::Operations({Operation::kSend, Operation::kWrite,
                             Operation::kRead, Operation::kAtomicCmpSwap,
                             Operation::kAtomicFetchAdd}),
          &C::operations);
    s.Key(knobs::Sizes(kMaxMessage), &C::sizes);
    s.Key(knobs::Interval(), &C::interval);
    s.Key(knobs::Iterations(), &C::iterations);
    s.Key(knobs::Timeout(), &C::op_timeout);
    s.Key("sq_depth", &C::sq_depth, config::Int<int>(2, 16384),
          "send queue depth");
    s.Key("rq_depth", &C::rq_depth, config::Int<int>(2, 16384),
          "receive queue depth");
    s.Key("cq_depth", &C::cq_depth, config::Int<int>(2, 65536),
          "completion queue depth, at least `sq_depth + rq_depth`");
    s.Key("gid_index", &C::gid_index, config::Int<int>(-1, 65535),
          "RoCE GID index; `-1`: the RoCEv2 IPv4-mapped GID, else the first "
          "usable");
    s.Key("mr_sizes", &C::mr_sizes, config::List(config::Size(1, kMaxMr)),
          "memory registration sizes measured");
    s.Key("mr_interval", &C::mr_interval,
          config::Duration(milliseconds(0), std::chrono::hours(24)),
          "time between memory registration measurements; `0s`: none");
    s.Key("qp_counters", &C::qp_counters, config::Bool(),
          "bind the probe's QPs to their own RDMA counter (needs "
          "`CAP_NET_ADMIN`)");
    s.Key("split_cpus", &C::split_cpus, config::Bool(),
          "keep the WRITE responder thread off the probe thread's CPU");
    s.Key("two_sided_write", &C::two_sided_write, config::Bool(),
          "answer WRITE pings from a responder thread (perftest's method) "
          "instead of both sides in the probe thread");
    s.Key(knobs::CpuBudgetPercent(), &C::cpu_budget_percent);
    s.Then([](C& c, const std::string& where) -> Status {
      // Both QPs of a pair share the send and the receive CQ of their
      // side; a CQ smaller than what can be outstanding could overrun.
      if (c.cq_depth < c.sq_depth + c.rq_depth) {
        return yaml::KeyError(where + ".cq_depth",
                              "must be at least sq_depth + rq_depth (" +
                                  std::to_string(c.sq_depth + c.rq_depth) +
                                  ")");
      }
      return Status::Ok();
    });
    return config::Section<ProbeConfig>{
        "probe",
        "Active latency probe (`--collector.probe`); "
        "[details](collectors/probe/README.md#settings-probe-in---configfile).",
        config::Map(std::move(s))};
  }();
  return section;
}

}  // namespace

std::uint32_t ProbeConfig::MaxSize() const {
  std::uint32_t m = 8;
  for (auto s : sizes) m = std::max(m, s);
  return m;
}

bool ProbeConfig::WantsDevice(const std::string& name) const {
  return devices.empty() ||
         std::find(devices.begin(), devices.end(), name) != devices.end();
}

bool ProbeConfig::WantsPort(int port) const {
  return ports.empty() ||
         std::find(ports.begin(), ports.end(), port) != ports.end();
}

Result<ProbeConfig> ParseProbeConfig(const YAML::Node& node) {
  return Schema().Parse(node);
}

config::SectionDoc ProbeConfigDoc() { return Schema().Doc(); }

}  // namespace rnic::probe
