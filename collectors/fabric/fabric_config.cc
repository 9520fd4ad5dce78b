#include "collectors/fabric/fabric_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "collectors/collector_options.h"
#include "collectors/common/yaml_map.h"

namespace rnic::fabric {
namespace {

Error KeyError(const std::string& key, const std::string& what) {
  return Error{"fabric." + key + ": " + what};
}

Result<std::string> Text(const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) return KeyError(key, "must be a scalar");
  return n.Scalar();
}

Result<long long> Int(const YAML::Node& n, const std::string& key, long long lo,
                      long long hi) {
  auto t = Text(n, key);
  if (!t) return t.error();
  long long v = 0;
  const std::string& s = *t;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    return KeyError(key, "not an integer: '" + s + "'");
  }
  if (v < lo || v > hi) {
    return KeyError(key, "must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi));
  }
  return v;
}

Result<bool> Bool(const YAML::Node& n, const std::string& key) {
  auto t = Text(n, key);
  if (!t) return t.error();
  if (*t == "true") return true;
  if (*t == "false") return false;
  return KeyError(key, "not a boolean (true/false): '" + *t + "'");
}

Result<std::chrono::milliseconds> Duration(const YAML::Node& n,
                                           const std::string& key,
                                           std::chrono::milliseconds lo) {
  auto t = Text(n, key);
  if (!t) return t.error();
  auto d = ParseDuration(*t);
  if (!d) return KeyError(key, d.error().message);
  if (*d < lo || *d > std::chrono::hours(24)) {
    return KeyError(
        key, "must be between " + std::to_string(lo.count()) + "ms and 24h");
  }
  return *d;
}

Result<probe::Operation> Op(const YAML::Node& n, const std::string& key) {
  auto t = Text(n, key);
  if (!t) return t.error();
  if (*t == "send") return probe::Operation::kSend;
  if (*t == "write") return probe::Operation::kWrite;
  if (*t == "read") return probe::Operation::kRead;
  return KeyError(key, "unknown operation '" + *t + "' (send, write, read)");
}

template <typename T, typename F>
Result<std::vector<T>> List(const YAML::Node& n, const std::string& key,
                            F item) {
  if (!n.IsSequence()) return KeyError(key, "must be a list");
  std::vector<T> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    auto v = item(n[i], key + "[" + std::to_string(i) + "]");
    if (!v) return v.error();
    out.push_back(std::move(*v));
  }
  return out;
}

Result<std::map<std::string, std::string>> Labels(const YAML::Node& n,
                                                  const std::string& key) {
  auto keys = MapKeys(n, "fabric." + key);
  if (!keys) return keys.error();
  std::map<std::string, std::string> out;
  for (const auto& k : *keys) {
    auto v = Text(n[k], key + "." + k);
    if (!v) return v.error();
    out[k] = *v;
  }
  return out;
}

Result<PeerSpec> Peer(const YAML::Node& n, const std::string& key) {
  PeerSpec p;
  std::string addr;
  if (n.IsScalar()) {
    addr = n.Scalar();
  } else {
    if (auto s = CheckMapKeys(n, "fabric." + key, {"address", "labels"}); !s)
      return s.error();
    if (!n["address"]) return KeyError(key, "needs an address");
    auto a = Text(n["address"], key + ".address");
    if (!a) return a.error();
    addr = *a;
    if (n["labels"]) {
      auto l = Labels(n["labels"], key + ".labels");
      if (!l) return l.error();
      p.labels = std::move(*l);
    }
  }
  auto hp = SplitHostPort(addr);
  if (!hp) return KeyError(key, hp.error().message);
  p.host = hp->first;
  p.exchange_port = hp->second;
  return p;
}

}  // namespace

Result<std::pair<std::string, int>> SplitHostPort(const std::string& text) {
  std::string host = text;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos) return Error{"unclosed '[' in " + text};
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return Error{"bad address " + text};
      port = text.substr(close + 2);
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    if (text.find(':') != colon) return Error{"IPv6 needs [brackets]: " + text};
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) return Error{"empty host in '" + text + "'"};
  for (unsigned char c : host) {
    if (!(std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '_'))
      return Error{"bad character in host '" + host + "'"};
  }
  int p = 0;
  if (!port.empty() || text.back() == ':') {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p < 1 ||
        p > 65535)
      return Error{"bad port in '" + text + "'"};
  }
  return std::pair{host, p};
}

std::uint32_t FabricConfig::MaxSize() const {
  std::uint32_t m = 8;
  for (auto s : sizes) m = std::max(m, s);
  return m;
}

bool FabricConfig::Wants(probe::Operation op) const {
  return std::find(operations.begin(), operations.end(), op) !=
         operations.end();
}

Result<FabricConfig> ParseFabricConfig(const YAML::Node& node) {
  FabricConfig c;
  if (!node || node.IsNull()) return c;
  if (auto s = CheckMapKeys(node, "fabric",
                            {"enabled",
                             "peers",
                             "file_sd",
                             "dns",
                             "refresh_interval",
                             "exchange_port",
                             "operations",
                             "sizes",
                             "interval",
                             "iterations",
                             "timeout",
                             "connect_timeout",
                             "backoff_initial",
                             "backoff_max",
                             "max_connections",
                             "ack_timeout",
                             "cpu_budget_percent",
                             "pairing",
                             "intra_host",
                             "group_by"});
      !s) {
    return s.error();
  }
  using std::chrono::milliseconds;
#define RNIC_TRY(var, expr) \
  auto var = (expr);        \
  if (!var) return var.error();
  if (node["enabled"]) {
    RNIC_TRY(v, Bool(node["enabled"], "enabled"));
    c.enabled = *v;
  }
  if (node["peers"]) {
    RNIC_TRY(v, List<PeerSpec>(node["peers"], "peers", Peer));
    c.peers = std::move(*v);
  }
  if (node["file_sd"]) {
    const auto& n = node["file_sd"];
    if (n.IsScalar()) {
      c.file_sd = {n.Scalar()};
    } else {
      RNIC_TRY(v, List<std::string>(n, "file_sd", Text));
      c.file_sd = std::move(*v);
    }
  }
  if (node["dns"]) {
    RNIC_TRY(v, Text(node["dns"], "dns"));
    auto hp = SplitHostPort(*v);
    if (!hp) return KeyError("dns", hp.error().message);
    c.dns = *v;
  }
  if (node["refresh_interval"]) {
    RNIC_TRY(v, Duration(node["refresh_interval"], "refresh_interval",
                         milliseconds(1000)));
    c.refresh = *v;
  }
  if (node["exchange_port"]) {
    RNIC_TRY(v, Int(node["exchange_port"], "exchange_port", 1, 65535));
    c.exchange_port = static_cast<int>(*v);
  }
  if (node["operations"]) {
    RNIC_TRY(v, List<probe::Operation>(node["operations"], "operations", Op));
    if (v->empty()) return KeyError("operations", "must not be empty");
    c.operations = std::move(*v);
  }
  if (node["sizes"]) {
    RNIC_TRY(v, List<std::uint32_t>(
                    node["sizes"], "sizes",
                    [](const YAML::Node& n,
                       const std::string& k) -> Result<std::uint32_t> {
                      auto i = Int(n, k, 1, kMaxMessage);
                      if (!i) return i.error();
                      return static_cast<std::uint32_t>(*i);
                    }));
    if (v->empty()) return KeyError("sizes", "must not be empty");
    c.sizes = std::move(*v);
  }
  if (node["interval"]) {
    RNIC_TRY(v, Duration(node["interval"], "interval", milliseconds(100)));
    c.interval = *v;
  }
  if (node["iterations"]) {
    RNIC_TRY(v, Int(node["iterations"], "iterations", 1, 1000));
    c.iterations = static_cast<int>(*v);
  }
  if (node["timeout"]) {
    RNIC_TRY(v, Duration(node["timeout"], "timeout", milliseconds(1)));
    c.op_timeout = *v;
  }
  if (node["connect_timeout"]) {
    RNIC_TRY(v, Duration(node["connect_timeout"], "connect_timeout",
                         milliseconds(10)));
    c.connect_timeout = *v;
  }
  if (node["backoff_initial"]) {
    RNIC_TRY(v, Duration(node["backoff_initial"], "backoff_initial",
                         milliseconds(10)));
    c.backoff_initial = *v;
  }
  if (node["backoff_max"]) {
    RNIC_TRY(v, Duration(node["backoff_max"], "backoff_max", milliseconds(10)));
    c.backoff_max = *v;
  }
  if (c.backoff_max < c.backoff_initial) {
    return KeyError("backoff_max", "must not be below backoff_initial");
  }
  if (node["max_connections"]) {
    RNIC_TRY(v, Int(node["max_connections"], "max_connections", 1, 65536));
    c.max_connections = static_cast<int>(*v);
  }
  if (node["ack_timeout"]) {
    RNIC_TRY(v, Int(node["ack_timeout"], "ack_timeout", -1, 31));
    c.ack_timeout = static_cast<int>(*v);
  }
  if (node["cpu_budget_percent"]) {
    RNIC_TRY(v, Int(node["cpu_budget_percent"], "cpu_budget_percent", 0, 100));
    c.cpu_budget_percent = static_cast<double>(*v);
  }
  if (node["pairing"]) {
    RNIC_TRY(v, Text(node["pairing"], "pairing"));
    if (*v == "subnet") {
      c.pairing = Pairing::kSubnet;
    } else if (*v == "all") {
      c.pairing = Pairing::kAll;
    } else {
      return KeyError("pairing", "must be subnet or all, not '" + *v + "'");
    }
  }
  if (node["intra_host"]) {
    RNIC_TRY(v, Bool(node["intra_host"], "intra_host"));
    c.intra_host = *v;
  }
  if (node["group_by"]) {
    RNIC_TRY(v, Text(node["group_by"], "group_by"));
    if (v->empty() || !std::all_of(v->begin(), v->end(), [](unsigned char ch) {
          return std::isalnum(ch) || ch == '_';
        })) {
      return KeyError("group_by", "must be a label name, not '" + *v + "'");
    }
    c.group_by = *v;
  }
#undef RNIC_TRY
  return c;
}

}  // namespace rnic::fabric
