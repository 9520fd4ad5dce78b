#include "collectors/probe/probe_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "collectors/collector_options.h"
#include "collectors/common/yaml_map.h"
#include "collectors/common/yaml_scalar.h"

namespace rnic::probe {
namespace {

constexpr std::uint32_t kMaxMessage = 1u << 20;
constexpr std::uint64_t kMaxMr = 1ull << 30;

Error KeyError(const std::string& key, const std::string& what) {
  return Error{"probe." + key + ": " + what};
}

std::string Trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// "4096", "4KiB", "4k", "1MiB", "64M": bytes.
Result<std::uint64_t> ParseBytes(const std::string& text) {
  std::string s = Trim(text);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return Error{"not a size: " + s};
  std::string unit(p, static_cast<const char*>(s.data() + s.size()));
  for (auto& c : unit) c = static_cast<char>(std::tolower(c));
  std::uint64_t mul = 1;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k" || unit == "kib" || unit == "kb") {
    mul = 1ull << 10;
  } else if (unit == "m" || unit == "mib" || unit == "mb") {
    mul = 1ull << 20;
  } else if (unit == "g" || unit == "gib" || unit == "gb") {
    mul = 1ull << 30;
  } else {
    return Error{"unknown size unit '" + unit + "'"};
  }
  return v * mul;
}

// Every value's path starts with the section.
std::string Key(const std::string& key) { return "probe." + key; }

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
  ProbeConfig c;
  if (Status st = CheckMapKeys(
          node, "probe",
          {"enabled", "devices", "ports", "operations", "sizes", "interval",
           "iterations", "timeout", "sq_depth", "rq_depth", "cq_depth",
           "gid_index", "mr_sizes", "mr_interval", "qp_counters", "split_cpus",
           "two_sided_write", "cpu_budget_percent"});
      !st.ok()) {
    return st.error();
  }
  if (!node || node.IsNull()) return c;
  if (auto n = node["enabled"]) {
    auto v = yaml::Bool(n, Key("enabled"));
    if (!v) return v.error();
    c.enabled = *v;
  }
  if (auto n = node["devices"]) {
    auto v = yaml::List(n, Key("devices"), yaml::Text);
    if (!v) return v.error();
    c.devices = *v;
  }
  if (auto n = node["ports"]) {
    if (!n.IsSequence()) return KeyError("ports", "must be a list");
    c.ports.clear();
    for (std::size_t i = 0; i < n.size(); ++i) {
      auto v = yaml::Int(n[i], Key("ports[" + std::to_string(i) + "]"), 1, 255);
      if (!v) return v.error();
      c.ports.push_back(static_cast<int>(*v));
    }
  }
  if (auto n = node["operations"]) {
    auto v = yaml::List(n, Key("operations"), yaml::Text);
    if (!v) return v.error();
    c.operations.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      auto op = ParseOperation((*v)[i]);
      if (!op) {
        return KeyError("operations[" + std::to_string(i) + "]",
                        op.error().message);
      }
      if (std::find(c.operations.begin(), c.operations.end(), *op) ==
          c.operations.end()) {
        c.operations.push_back(*op);
      }
    }
  }
  if (auto n = node["sizes"]) {
    if (!n.IsSequence() || n.size() == 0) {
      return KeyError("sizes", "must be a non-empty list");
    }
    c.sizes.clear();
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string key = "sizes[" + std::to_string(i) + "]";
      if (!n[i].IsScalar()) return KeyError(key, "must be a size");
      auto b = ParseBytes(n[i].Scalar());
      if (!b) return KeyError(key, b.error().message);
      if (*b < 1 || *b > kMaxMessage) {
        return KeyError(key,
                        "must be between 1 and " + std::to_string(kMaxMessage));
      }
      c.sizes.push_back(static_cast<std::uint32_t>(*b));
    }
  }
  if (auto n = node["interval"]) {
    auto d = yaml::Duration(n, Key("interval"), std::chrono::milliseconds(10),
                            std::chrono::hours(1));
    if (!d) return d.error();
    c.interval = *d;
  }
  if (auto n = node["timeout"]) {
    auto d = yaml::Duration(n, Key("timeout"), std::chrono::milliseconds(1),
                            std::chrono::minutes(1));
    if (!d) return d.error();
    c.op_timeout = *d;
  }
  if (auto n = node["mr_interval"]) {
    auto d = yaml::Duration(n, Key("mr_interval"), std::chrono::milliseconds(0),
                            std::chrono::hours(24));
    if (!d) return d.error();
    c.mr_interval = *d;
  }
  struct IntKey {
    const char* key;
    int* dst;
    int lo, hi;
  };
  for (const IntKey& k : {IntKey{"iterations", &c.iterations, 1, 100000},
                          IntKey{"sq_depth", &c.sq_depth, 2, 16384},
                          IntKey{"rq_depth", &c.rq_depth, 2, 16384},
                          IntKey{"cq_depth", &c.cq_depth, 2, 65536},
                          IntKey{"gid_index", &c.gid_index, -1, 65535}}) {
    if (auto n = node[k.key]) {
      auto v = yaml::Int(n, Key(k.key), k.lo, k.hi);
      if (!v) return v.error();
      *k.dst = static_cast<int>(*v);
    }
  }
  if (c.cq_depth < c.sq_depth + c.rq_depth) {
    // Both QPs of a pair share the send and the receive CQ of their side;
    // a CQ smaller than what can be outstanding could overrun.
    return KeyError("cq_depth", "must be at least sq_depth + rq_depth (" +
                                    std::to_string(c.sq_depth + c.rq_depth) +
                                    ")");
  }
  if (auto n = node["mr_sizes"]) {
    if (!n.IsSequence()) return KeyError("mr_sizes", "must be a list");
    c.mr_sizes.clear();
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string key = "mr_sizes[" + std::to_string(i) + "]";
      if (!n[i].IsScalar()) return KeyError(key, "must be a size");
      auto b = ParseBytes(n[i].Scalar());
      if (!b) return KeyError(key, b.error().message);
      if (*b < 1 || *b > kMaxMr) {
        return KeyError(key, "must be between 1 and " + std::to_string(kMaxMr));
      }
      c.mr_sizes.push_back(*b);
    }
  }
  if (auto n = node["qp_counters"]) {
    auto v = yaml::Bool(n, Key("qp_counters"));
    if (!v) return v.error();
    c.qp_counters = *v;
  }
  if (auto n = node["two_sided_write"]) {
    auto v = yaml::Bool(n, Key("two_sided_write"));
    if (!v) return v.error();
    c.two_sided_write = *v;
  }
  if (auto n = node["cpu_budget_percent"]) {
    // 0: no limit.
    auto v = yaml::Number(n, Key("cpu_budget_percent"), 0, 100);
    if (!v) return v.error();
    c.cpu_budget_percent = *v;
  }
  if (auto n = node["split_cpus"]) {
    auto v = yaml::Bool(n, Key("split_cpus"));
    if (!v) return v.error();
    c.split_cpus = *v;
  }
  return c;
}

}  // namespace rnic::probe
