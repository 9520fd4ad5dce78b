#include "collectors/fabric/fabric_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "collectors/collector_options.h"
#include "collectors/common/host_port.h"
#include "collectors/common/yaml_map.h"
#include "collectors/common/yaml_scalar.h"

namespace rnic::fabric {
namespace {

// Every value's path starts with the section.
std::string P(const std::string& key) { return "fabric." + key; }
using yaml::KeyError;

// Durations longer than a day are configuration mistakes.
constexpr std::chrono::milliseconds kMaxDuration = std::chrono::hours(24);

// The probe's operation names; the fabric probe does the two-sided ones.
Result<probe::Operation> Op(const YAML::Node& n, const std::string& where) {
  auto t = yaml::Text(n, where);
  if (!t) return t.error();
  auto op = probe::ParseOperation(*t);
  if (!op || probe::IsAtomic(*op)) {
    return KeyError(where,
                    "unknown operation '" + *t + "' (send, write, read)");
  }
  return *op;
}

Result<std::map<std::string, std::string>> Labels(const YAML::Node& n,
                                                  const std::string& key) {
  auto keys = MapKeys(n, key);
  if (!keys) return keys.error();
  std::map<std::string, std::string> out;
  for (const auto& k : *keys) {
    auto v = yaml::Text(n[k], key + "." + k);
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
    if (auto s = CheckMapKeys(n, key, {"address", "labels"}); !s)
      return s.error();
    if (!n["address"]) return KeyError(key, "needs an address");
    auto a = yaml::Text(n["address"], key + ".address");
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

// A path value: non-empty text.
Result<std::string> Path(const YAML::Node& n, const std::string& key) {
  auto t = yaml::Text(n, key);
  if (!t) return t.error();
  if (t->empty()) return KeyError(key, "must not be empty");
  return *t;
}

Result<ExchangeTlsConfig> ExchangeTls(const YAML::Node& n,
                                      const std::string& key) {
  if (auto s = CheckMapKeys(n, key,
                            {"ca_file", "cert_file", "key_file", "server_name",
                             "insecure_skip_verify"});
      !s) {
    return s.error();
  }
  ExchangeTlsConfig t;
  for (auto [name, field] :
       {std::pair{"ca_file", &t.ca_file}, std::pair{"cert_file", &t.cert_file},
        std::pair{"key_file", &t.key_file}}) {
    if (!n[name]) continue;
    auto v = Path(n[name], key + "." + name);
    if (!v) return v.error();
    *field = std::move(*v);
  }
  if (t.cert_file.empty() != t.key_file.empty()) {
    return KeyError(key + (t.cert_file.empty() ? ".cert_file" : ".key_file"),
                    "cert_file and key_file go together");
  }
  if (n["server_name"]) {
    auto v = yaml::Text(n["server_name"], key + ".server_name");
    if (!v) return v.error();
    if (v->empty() || !std::all_of(v->begin(), v->end(), [](unsigned char ch) {
          return std::isalnum(ch) || ch == '.' || ch == '-' || ch == ':' ||
                 ch == '_';
        })) {
      return KeyError(key + ".server_name",
                      "must be a host name or IP address, not '" + *v + "'");
    }
    t.server_name = *v;
  }
  if (n["insecure_skip_verify"]) {
    auto v =
        yaml::Bool(n["insecure_skip_verify"], key + ".insecure_skip_verify");
    if (!v) return v.error();
    t.insecure_skip_verify = *v;
  }
  return t;
}

Result<ExchangeBasicAuth> BasicAuth(const YAML::Node& n,
                                    const std::string& key) {
  if (auto s = CheckMapKeys(n, key, {"username", "password_file"}); !s)
    return s.error();
  if (!n["username"]) return KeyError(key, "needs a username");
  if (!n["password_file"]) return KeyError(key, "needs a password_file");
  ExchangeBasicAuth a;
  auto u = yaml::Text(n["username"], key + ".username");
  if (!u) return u.error();
  // RFC 7617: the user-id cannot contain a colon; control characters would
  // break the header.
  if (u->empty() || std::any_of(u->begin(), u->end(), [](unsigned char ch) {
        return ch == ':' || ch < 0x20 || ch == 0x7f;
      })) {
    return KeyError(key + ".username",
                    "must be non-empty, without ':' or control characters");
  }
  a.username = std::move(*u);
  auto p = Path(n["password_file"], key + ".password_file");
  if (!p) return p.error();
  a.password_file = std::move(*p);
  return a;
}

}  // namespace

Result<std::pair<std::string, int>> SplitHostPort(const std::string& text) {
  auto hp = ParseHostPort(text);
  if (!hp.ok()) return hp.error();
  if (hp->host.empty()) return Error{"empty host in '" + text + "'"};
  for (unsigned char c : hp->host) {
    if (!(std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '_'))
      return Error{"bad character in host '" + hp->host + "'"};
  }
  if (hp->port && *hp->port == 0) {
    return Error{"bad port in '" + text + "' (expected 1 to 65535)"};
  }
  return std::pair{hp->host, hp->port.value_or(0)};
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
                             "exchange_scheme",
                             "exchange_tls_config",
                             "exchange_basic_auth",
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
    RNIC_TRY(v, yaml::Bool(node["enabled"], P("enabled")));
    c.enabled = *v;
  }
  if (node["peers"]) {
    RNIC_TRY(v, yaml::List(node["peers"], P("peers"), Peer));
    c.peers = std::move(*v);
  }
  if (node["file_sd"]) {
    const auto& n = node["file_sd"];
    if (n.IsScalar()) {
      c.file_sd = {n.Scalar()};
    } else {
      RNIC_TRY(v, yaml::List(n, P("file_sd"), yaml::Text));
      c.file_sd = std::move(*v);
    }
  }
  if (node["dns"]) {
    RNIC_TRY(v, yaml::Text(node["dns"], P("dns")));
    auto hp = SplitHostPort(*v);
    if (!hp) return KeyError(P("dns"), hp.error().message);
    c.dns = *v;
  }
  if (node["refresh_interval"]) {
    RNIC_TRY(v, yaml::Duration(node["refresh_interval"], P("refresh_interval"),
                               milliseconds(1000), kMaxDuration));
    c.refresh = *v;
  }
  if (node["exchange_port"]) {
    RNIC_TRY(v, yaml::Int(node["exchange_port"], P("exchange_port"), 1, 65535));
    c.exchange_port = static_cast<int>(*v);
  }
  if (node["exchange_scheme"]) {
    RNIC_TRY(v, yaml::Text(node["exchange_scheme"], P("exchange_scheme")));
    if (*v != "http" && *v != "https") {
      return KeyError(P("exchange_scheme"),
                      "must be http or https, not '" + *v + "'");
    }
    c.exchange_https = *v == "https";
  }
  if (node["exchange_tls_config"]) {
    if (!c.exchange_https) {
      return KeyError(P("exchange_tls_config"), "needs exchange_scheme: https");
    }
    RNIC_TRY(
        v, ExchangeTls(node["exchange_tls_config"], P("exchange_tls_config")));
    c.exchange_tls = std::move(*v);
  }
  if (node["exchange_basic_auth"]) {
    RNIC_TRY(v,
             BasicAuth(node["exchange_basic_auth"], P("exchange_basic_auth")));
    c.exchange_basic_auth = std::move(*v);
  }
  if (node["operations"]) {
    RNIC_TRY(v, yaml::List(node["operations"], P("operations"), Op));
    if (v->empty()) return KeyError(P("operations"), "must not be empty");
    c.operations = std::move(*v);
  }
  if (node["sizes"]) {
    RNIC_TRY(v, yaml::List(node["sizes"], P("sizes"),
                           [](const YAML::Node& n,
                              const std::string& k) -> Result<std::uint32_t> {
                             auto i = yaml::Int(n, k, 1, kMaxMessage);
                             if (!i) return i.error();
                             return static_cast<std::uint32_t>(*i);
                           }));
    if (v->empty()) return KeyError(P("sizes"), "must not be empty");
    c.sizes = std::move(*v);
  }
  if (node["interval"]) {
    RNIC_TRY(v, yaml::Duration(node["interval"], P("interval"),
                               milliseconds(100), kMaxDuration));
    c.interval = *v;
  }
  if (node["iterations"]) {
    RNIC_TRY(v, yaml::Int(node["iterations"], P("iterations"), 1, 1000));
    c.iterations = static_cast<int>(*v);
  }
  if (node["timeout"]) {
    RNIC_TRY(v, yaml::Duration(node["timeout"], P("timeout"), milliseconds(1),
                               kMaxDuration));
    c.op_timeout = *v;
  }
  if (node["connect_timeout"]) {
    RNIC_TRY(v, yaml::Duration(node["connect_timeout"], P("connect_timeout"),
                               milliseconds(10), kMaxDuration));
    c.connect_timeout = *v;
  }
  if (node["backoff_initial"]) {
    RNIC_TRY(v, yaml::Duration(node["backoff_initial"], P("backoff_initial"),
                               milliseconds(10), kMaxDuration));
    c.backoff_initial = *v;
  }
  if (node["backoff_max"]) {
    RNIC_TRY(v, yaml::Duration(node["backoff_max"], P("backoff_max"),
                               milliseconds(10), kMaxDuration));
    c.backoff_max = *v;
  }
  if (c.backoff_max < c.backoff_initial) {
    return KeyError(P("backoff_max"), "must not be below backoff_initial");
  }
  if (node["max_connections"]) {
    RNIC_TRY(
        v, yaml::Int(node["max_connections"], P("max_connections"), 1, 65536));
    c.max_connections = static_cast<int>(*v);
  }
  if (node["ack_timeout"]) {
    RNIC_TRY(v, yaml::Int(node["ack_timeout"], P("ack_timeout"), -1, 31));
    c.ack_timeout = static_cast<int>(*v);
  }
  if (node["cpu_budget_percent"]) {
    RNIC_TRY(v, yaml::Int(node["cpu_budget_percent"], P("cpu_budget_percent"),
                          0, 100));
    c.cpu_budget_percent = static_cast<double>(*v);
  }
  if (node["pairing"]) {
    RNIC_TRY(v, yaml::Text(node["pairing"], P("pairing")));
    if (*v == "subnet") {
      c.pairing = Pairing::kSubnet;
    } else if (*v == "all") {
      c.pairing = Pairing::kAll;
    } else {
      return KeyError(P("pairing"), "must be subnet or all, not '" + *v + "'");
    }
  }
  if (node["intra_host"]) {
    RNIC_TRY(v, yaml::Bool(node["intra_host"], P("intra_host")));
    c.intra_host = *v;
  }
  if (node["group_by"]) {
    RNIC_TRY(v, yaml::Text(node["group_by"], P("group_by")));
    if (v->empty() || !std::all_of(v->begin(), v->end(), [](unsigned char ch) {
          return std::isalnum(ch) || ch == '_';
        })) {
      return KeyError(P("group_by"), "must be a label name, not '" + *v + "'");
    }
    c.group_by = *v;
  }
#undef RNIC_TRY
  return c;
}

}  // namespace rnic::fabric
