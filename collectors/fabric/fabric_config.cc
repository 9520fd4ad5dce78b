#include "collectors/fabric/fabric_config.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "collectors/common/bounded_file.h"
#include "collectors/common/config_schema.h"
#include "collectors/common/host_port.h"
#include "collectors/fabric/peer_sources.h"
#include "collectors/probing/probe_knobs.h"

namespace rnic::fabric {
namespace {

using std::chrono::milliseconds;
using yaml::KeyError;

// Durations longer than a day are configuration mistakes.
constexpr milliseconds kMaxDuration = std::chrono::hours(24);

bool HostChar(unsigned char ch) {
  return std::isalnum(ch) || ch == '.' || ch == '-' || ch == ':' || ch == '_';
}

// A peer written as a map.
struct PeerEntry {
  std::string address;
  std::map<std::string, std::string> labels;
};

// "host", "host:port", or {address: host:port, labels: {...}}.
config::Value<PeerSpec> Peer() {
  config::MapSchema<PeerEntry> s;
  s.Key("address", &PeerEntry::address, config::String(),
        "`host` or `host:port` of the peer's exporter")
      .Required("an address");
  s.Key("labels", &PeerEntry::labels, config::StringMap(),
        "labels of the peer's series");
  config::Value<PeerSpec> v;
  v.doc = {"`host[:port]` or map", "", s.Docs(), false};
  v.parse = [s](const YAML::Node& n,
                const std::string& where) -> Result<PeerSpec> {
    PeerEntry e;
    if (n.IsScalar()) {
      e.address = n.Scalar();
    } else if (Status st = s.ParseInto(n, where, e); !st) {
      return st.error();
    }
    auto hp = SplitHostPort(e.address);
    if (!hp) return KeyError(where, hp.error().message);
    return PeerSpec{hp->first, hp->second, std::move(e.labels)};
  };
  v.show = [](const PeerSpec& p) { return p.host; };
  return v;
}

// A file_sd file as the config names it. Missing is allowed (a generator
// may write it later; the probe warns and picks it up when it appears); a
// file that exists but is no peer list (a directory, /dev/zero, a runaway
// file, bad JSON) is a mistake the operator must see at start-up or reload.
Status CheckFileSd(const std::string& path, const std::string& where) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    spdlog::warn("fabric: {}: file_sd file {} does not exist yet", where, path);
    return {};
  }
  auto text = ReadBoundedFile(path, kFileSdLimit);
  if (!text) return KeyError(where, text.error().message);
  if (auto peers = ParseFileSd(*text); !peers) {
    return KeyError(where, path + ": " + peers.error().message);
  }
  return {};
}

// One file or a list of them.
config::Value<std::vector<std::string>> Files() {
  auto v = config::StringList();
  v.doc.type = "string or list of strings";
  v.parse = [list = v.parse](
                const YAML::Node& n,
                const std::string& where) -> Result<std::vector<std::string>> {
    auto files = n.IsScalar() ? Result<std::vector<std::string>>(
                                    std::vector<std::string>{n.Scalar()})
                              : list(n, where);
    if (!files) return files;
    for (std::size_t i = 0; i < files->size(); ++i) {
      const std::string at =
          n.IsScalar() ? where : where + "[" + std::to_string(i) + "]";
      if (Status st = CheckFileSd((*files)[i], at); !st) return st.error();
    }
    return files;
  };
  return v;
}

// `name[:port]` whose A records are peers.
config::Value<std::string> DnsName() {
  auto v = config::String();
  v.doc.type = "`name[:port]`";
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::string> {
    auto t = yaml::Text(n, where);
    if (!t) return t.error();
    auto hp = SplitHostPort(*t);
    if (!hp) return KeyError(where, hp.error().message);
    return t;
  };
  return v;
}

config::Value<std::string> ServerName() {
  auto v = config::String();
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::string> {
    auto t = yaml::Text(n, where);
    if (!t) return t.error();
    if (t->empty() || !std::all_of(t->begin(), t->end(), HostChar)) {
      return KeyError(where,
                      "must be a host name or IP address, not '" + *t + "'");
    }
    return t;
  };
  return v;
}

config::Value<std::string> UserName() {
  auto v = config::String();
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::string> {
    auto u = yaml::Text(n, where);
    if (!u) return u.error();
    // RFC 7617: the user-id cannot contain a colon; control characters
    // would break the header.
    if (u->empty() || std::any_of(u->begin(), u->end(), [](unsigned char ch) {
          return ch == ':' || ch < 0x20 || ch == 0x7f;
        })) {
      return KeyError(where,
                      "must be non-empty, without ':' or control characters");
    }
    return u;
  };
  return v;
}

config::Value<std::string> LabelName() {
  auto v = config::String();
  v.doc.type = "label name";
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<std::string> {
    auto t = yaml::Text(n, where);
    if (!t) return t.error();
    if (t->empty() || !std::all_of(t->begin(), t->end(), [](unsigned char ch) {
          return std::isalnum(ch) || ch == '_';
        })) {
      return KeyError(where, "must be a label name, not '" + *t + "'");
    }
    return t;
  };
  return v;
}

config::Value<ExchangeTlsConfig> ExchangeTls() {
  using T = ExchangeTlsConfig;
  config::MapSchema<T> s;
  s.Key("ca_file", &T::ca_file, config::NonEmptyString(),
        "CA certificates the peers' certificates are checked against; "
        "unset: the system's trust store");
  s.Key("cert_file", &T::cert_file, config::NonEmptyString(),
        "client certificate, with `key_file`");
  s.Key("key_file", &T::key_file, config::NonEmptyString(),
        "the client certificate's key");
  s.Key("server_name", &T::server_name, ServerName(),
        "name the peers' certificates must carry; unset: the peer's host");
  s.Key("insecure_skip_verify", &T::insecure_skip_verify, config::Bool(),
        "accept any certificate");
  s.Then([](T& t, const std::string& where) -> Status {
    if (t.cert_file.empty() != t.key_file.empty()) {
      return KeyError(
          where + (t.cert_file.empty() ? ".cert_file" : ".key_file"),
          "cert_file and key_file go together");
    }
    return Status::Ok();
  });
  return config::Map(std::move(s));
}

config::Value<std::optional<ExchangeBasicAuth>> BasicAuth() {
  using A = ExchangeBasicAuth;
  config::MapSchema<A> s;
  s.Key("username", &A::username, UserName(), "user name")
      .Required("a username");
  s.Key("password_file", &A::password_file, config::NonEmptyString(),
        "file holding the password, read at each exchange")
      .Required("a password_file");
  return config::Optional(config::Map(std::move(s)));
}

config::Value<MeshConfig> Mesh() {
  using M = MeshConfig;
  config::MapSchema<M> s;
  s.Key("max_peers", &M::max_peers, config::Int<int>(0, 65536),
        "peers probed per period; `0`: all");
  s.Key("representatives", &M::representatives, config::Int<int>(1, 1024),
        "hosts of each other group a group probes per period");
  s.Key("rotation_period", &M::rotation,
        config::Duration(std::chrono::seconds(1), kMaxDuration),
        "how long a schedule lasts");
  s.Key("group_label", &M::group_label, LabelName(),
        "peer label naming its group (ToR, rack)");
  s.Key("detail_peers", &M::detail_peers, config::Int<int>(0, 1024),
        "own-group peers kept per pair");
  return config::Map(std::move(s));
}

config::Value<LivePeersConfig> LivePeers() {
  using L = LivePeersConfig;
  config::MapSchema<L> s;
  s.Key("enabled", &L::enabled, config::Bool(),
        "probe the hosts of this host's established rdma_cm connections "
        "first");
  s.Key("max_peers", &L::max_peers, config::Int<int>(1, 1024),
        "live peers kept, the most connected first");
  return config::Map(std::move(s));
}

// The `fabric:` keys, each declared once (collectors/common/config_schema.h).
const config::Section<FabricConfig>& Schema() {
  static const config::Section<FabricConfig> section = [] {
    using C = FabricConfig;
    namespace knobs = probe::knobs;
    config::MapSchema<C> s;
    s.Key(knobs::Enabled(), &C::enabled);
    s.Key("peers", &C::peers, config::List(Peer()),
          "peer hosts, `host[:port]` (the port of their exporter)");
    s.Key("file_sd", &C::file_sd, Files(),
          "Prometheus file_sd files listing peers");
    s.Key("dns", &C::dns, DnsName(), "a name whose A records are peers");
    s.Key("refresh_interval", &C::refresh,
          config::Duration(std::chrono::seconds(1), kMaxDuration),
          "file_sd check, DNS re-resolution and address exchange");
    s.Key("exchange_port", &C::exchange_port, config::Int<int>(1, 65535),
          "the peers' exporter port when a peer names none");
    s.Key("exchange_scheme", &C::exchange_https,
          config::Enum<bool>({{"http", false}, {"https", true}}),
          "`https` when the peers' exporters serve TLS");
    s.Key("exchange_tls_config", &C::exchange_tls, ExchangeTls(),
          "TLS of the address exchange (with `exchange_scheme: https`)");
    s.Key("exchange_basic_auth", &C::exchange_basic_auth, BasicAuth(),
          "basic auth of the address exchange");
    s.Key(knobs::Operations({probe::Operation::kSend, probe::Operation::kWrite,
                             probe::Operation::kRead}),
          &C::operations);
    s.Key(knobs::Sizes(kMaxMessage), &C::sizes);
    s.Key(knobs::Interval(), &C::interval);
    s.Key(knobs::Iterations(), &C::iterations);
    s.Key(knobs::Timeout(), &C::op_timeout);
    s.Key("connect_timeout", &C::connect_timeout,
          config::Duration(milliseconds(10), kMaxDuration),
          "timeout of each rdma_cm connection step");
    s.Key("backoff_initial", &C::backoff_initial,
          config::Duration(milliseconds(10), kMaxDuration),
          "first reconnect delay, doubled at each failure");
    s.Key("backoff_max", &C::backoff_max,
          config::Duration(milliseconds(10), kMaxDuration),
          "longest reconnect delay, at least `backoff_initial`");
    s.Key("max_connections", &C::max_connections, config::Int<int>(1, 65536),
          "connections per device (partial mesh: both ways)");
    s.Key("ack_timeout", &C::ack_timeout, config::Int<int>(-1, 31),
          "RC ACK timeout exponent (4.096 µs × 2^n) of both ends; `-1`: "
          "rdma_cm's default");
    s.Key(knobs::CpuBudgetPercent(), &C::cpu_budget_percent);
    s.Key("pairing", &C::pairing,
          config::Enum<Pairing>(
              {{"subnet", Pairing::kSubnet}, {"all", Pairing::kAll}}),
          "which local and remote addresses are paired: those sharing a "
          "subnet, or all");
    s.Key("intra_host", &C::intra_host, config::Bool(),
          "probe between this host's own devices too");
    s.Key("group_by", &C::group_by, LabelName(),
          "a peer label: one histogram per value instead of per peer");
    s.Key("mesh", &C::mesh, Mesh(),
          "partial mesh of large fleets "
          "([details](collectors/fabric/README.md#large-fleets))");
    s.Key("live_peers", &C::live_peers, LivePeers(),
          "peers from this host's own RDMA connections "
          "([details](collectors/fabric/README.md#live-peers))");
    s.Then([](C& c, const std::string& where) -> Status {
      if (!c.exchange_https && c.exchange_tls != ExchangeTlsConfig{}) {
        return KeyError(where + ".exchange_tls_config",
                        "needs exchange_scheme: https");
      }
      if (c.backoff_max < c.backoff_initial) {
        return KeyError(where + ".backoff_max",
                        "must not be below backoff_initial");
      }
      return Status::Ok();
    });
    return config::Section<FabricConfig>{
        "fabric",
        "Fabric probe between hosts (`--collector.fabric`); "
        "[details](collectors/fabric/README.md#settings).",
        config::Map(std::move(s))};
  }();
  return section;
}

}  // namespace

Result<std::pair<std::string, int>> SplitHostPort(const std::string& text) {
  auto hp = ParseHostPort(text);
  if (!hp.ok()) return hp.error();
  if (hp->host.empty()) return Error{"empty host in '" + text + "'"};
  if (!std::all_of(hp->host.begin(), hp->host.end(), HostChar)) {
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
  return Schema().Parse(node);
}

config::SectionDoc FabricConfigDoc() { return Schema().Doc(); }

}  // namespace rnic::fabric
