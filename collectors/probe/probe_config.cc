#include "collectors/probe/probe_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

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

Result<Operation> ParseOperation(const std::string& s) {
  if (s == "send") return Operation::kSend;
  if (s == "write") return Operation::kWrite;
  if (s == "read") return Operation::kRead;
  if (s == "atomic_cmp_swap" || s == "cmp_swap")
    return Operation::kAtomicCmpSwap;
  if (s == "atomic_fetch_add" || s == "fetch_add")
    return Operation::kAtomicFetchAdd;
  return Error{"unknown operation '" + s +
               "' (send, write, read, atomic_cmp_swap, atomic_fetch_add)"};
}

// Scalar reader with the key in every message.
template <typename T>
Result<T> Scalar(const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) return KeyError(key, "must be a scalar");
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    return KeyError(key, "cannot parse '" + n.Scalar() + "'");
  }
}

Result<int> IntInRange(const YAML::Node& n, const std::string& key, int lo,
                       int hi) {
  auto v = Scalar<long long>(n, key);
  if (!v) return v.error();
  if (*v < lo || *v > hi) {
    return KeyError(key, "must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi));
  }
  return static_cast<int>(*v);
}

Result<std::chrono::milliseconds> DurationKey(const YAML::Node& n,
                                              const std::string& key,
                                              std::chrono::milliseconds lo,
                                              std::chrono::milliseconds hi) {
  if (!n.IsScalar()) return KeyError(key, "must be a duration like 1s");
  auto d = ParseDuration(n.Scalar());
  if (!d) return KeyError(key, d.error().message);
  if (*d < lo || *d > hi) {
    return KeyError(key, "must be between " + std::to_string(lo.count()) +
                             "ms and " + std::to_string(hi.count()) + "ms");
  }
  return *d;
}

Result<std::vector<std::string>> StringList(const YAML::Node& n,
                                            const std::string& key) {
  if (!n.IsSequence()) return KeyError(key, "must be a list");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    auto s = Scalar<std::string>(n[i], key + "[" + std::to_string(i) + "]");
    if (!s) return s.error();
    out.push_back(*s);
  }
  return out;
}

}  // namespace

const char* OperationName(Operation op) {
  switch (op) {
    case Operation::kSend:
      return "send";
    case Operation::kWrite:
      return "write";
    case Operation::kRead:
      return "read";
    case Operation::kAtomicCmpSwap:
      return "atomic_cmp_swap";
    case Operation::kAtomicFetchAdd:
      return "atomic_fetch_add";
  }
  return "unknown";
}

bool IsAtomic(Operation op) {
  return op == Operation::kAtomicCmpSwap || op == Operation::kAtomicFetchAdd;
}

bool IsHalfRoundTrip(Operation op) {
  return op == Operation::kSend || op == Operation::kWrite;
}

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

Result<std::chrono::milliseconds> ParseDuration(const std::string& text) {
  std::string s = Trim(text);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data() || v < 0) {
    return Error{"not a duration: '" + s + "'"};
  }
  std::string unit(p, static_cast<const char*>(s.data() + s.size()));
  double ms = 0;
  if (unit.empty() || unit == "s") {
    ms = v * 1000;
  } else if (unit == "ms") {
    ms = v;
  } else if (unit == "us") {
    ms = v / 1000;
  } else if (unit == "m") {
    ms = v * 60000;
  } else if (unit == "h") {
    ms = v * 3600000;
  } else {
    return Error{"unknown duration unit '" + unit + "'"};
  }
  // "nan", "inf" and "1e100s" parse as doubles; converting them to an
  // integer is undefined (found by tests/fuzz/fuzz_config).
  if (!(ms < 1e15)) return Error{"duration out of range: '" + s + "'"};
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

Result<ProbeConfig> ParseProbeConfig(const YAML::Node& node) {
  ProbeConfig c;
  if (!node || node.IsNull()) return c;
  if (!node.IsMap()) return Error{"probe: must be a map"};
  static const std::set<std::string> kKnown = {
      "enabled",         "devices",           "ports",       "operations",
      "sizes",           "interval",          "iterations",  "timeout",
      "sq_depth",        "rq_depth",          "cq_depth",    "gid_index",
      "mr_sizes",        "mr_interval",       "qp_counters", "split_cpus",
      "two_sided_write", "cpu_budget_percent"};
  for (const auto& kv : node) {
    // as<std::string>() throws on a list or map key ("[a, b]: 1").
    if (!kv.first.IsScalar())
      return Error{"probe: a key must be a name, not a list or a map"};
    const auto key = kv.first.as<std::string>();
    if (!kKnown.count(key)) return KeyError(key, "unknown key");
  }
  if (auto n = node["enabled"]) {
    auto v = Scalar<bool>(n, "enabled");
    if (!v) return v.error();
    c.enabled = *v;
  }
  if (auto n = node["devices"]) {
    auto v = StringList(n, "devices");
    if (!v) return v.error();
    c.devices = *v;
  }
  if (auto n = node["ports"]) {
    if (!n.IsSequence()) return KeyError("ports", "must be a list");
    c.ports.clear();
    for (std::size_t i = 0; i < n.size(); ++i) {
      auto v = IntInRange(n[i], "ports[" + std::to_string(i) + "]", 1, 255);
      if (!v) return v.error();
      c.ports.push_back(*v);
    }
  }
  if (auto n = node["operations"]) {
    auto v = StringList(n, "operations");
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
    auto d = DurationKey(n, "interval", std::chrono::milliseconds(10),
                         std::chrono::hours(1));
    if (!d) return d.error();
    c.interval = *d;
  }
  if (auto n = node["timeout"]) {
    auto d = DurationKey(n, "timeout", std::chrono::milliseconds(1),
                         std::chrono::minutes(1));
    if (!d) return d.error();
    c.op_timeout = *d;
  }
  if (auto n = node["mr_interval"]) {
    auto d = DurationKey(n, "mr_interval", std::chrono::milliseconds(0),
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
      auto v = IntInRange(n, k.key, k.lo, k.hi);
      if (!v) return v.error();
      *k.dst = *v;
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
    auto v = Scalar<bool>(n, "qp_counters");
    if (!v) return v.error();
    c.qp_counters = *v;
  }
  if (auto n = node["two_sided_write"]) {
    auto v = Scalar<bool>(n, "two_sided_write");
    if (!v) return v.error();
    c.two_sided_write = *v;
  }
  if (auto n = node["cpu_budget_percent"]) {
    auto v = Scalar<double>(n, "cpu_budget_percent");
    if (!v) return v.error();
    if (!(*v >= 0 && *v <= 100)) {
      return KeyError("cpu_budget_percent",
                      "must be between 0 (no limit) and 100");
    }
    c.cpu_budget_percent = *v;
  }
  if (auto n = node["split_cpus"]) {
    auto v = Scalar<bool>(n, "split_cpus");
    if (!v) return v.error();
    c.split_cpus = *v;
  }
  return c;
}

}  // namespace rnic::probe
