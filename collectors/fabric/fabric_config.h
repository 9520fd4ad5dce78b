// Settings of the fabric probe: the `fabric:` section of --config.file (the
// peers, operations and pacing) and three typed flags (--collector.fabric.
// devices, .port, .tos). Every field has a default; only the peers must be
// given for the initiator to have anything to do.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/common/config_schema.h"
#include "collectors/common/result.h"
#include "collectors/probing/operation.h"

namespace rnic::fabric {

// rdma_cm port space RDMA_PS_TCP port of the responder. perftest uses 18515;
// this one is free of it so ib_*_lat can run next to the exporter.
inline constexpr int kDefaultPort = 18530;
// Port of the peers' exporters for the address exchange (the exporter's own
// default listen port).
inline constexpr int kDefaultExchangePort = 9709;

// A peer host: management address (name or IP) and the labels it came with.
struct PeerSpec {
  std::string host;
  int exchange_port = 0;  // 0: FabricConfig::exchange_port
  std::map<std::string, std::string> labels;
  bool operator==(const PeerSpec&) const = default;
};

// How local and remote RDMA addresses are paired: `subnet` probes the pairs
// whose addresses share a subnet (one rail with another's same rail), `all`
// every pair (a routed fabric).
enum class Pairing { kSubnet, kAll };

// How the address exchange reaches peers' exporters that serve TLS and/or
// ask for basic auth (their --web.config.file); named as in Prometheus'
// scrape config. Paths are used as given.
struct ExchangeTlsConfig {
  std::string ca_file;    // empty: the system's trust store
  std::string cert_file;  // client certificate (with key_file), optional
  std::string key_file;
  std::string server_name;  // empty: the peer's host (name or IP)
  bool insecure_skip_verify = false;
  bool operator==(const ExchangeTlsConfig&) const = default;
};
struct ExchangeBasicAuth {
  std::string username;
  std::string password_file;  // read at each exchange, trimmed
  bool operator==(const ExchangeBasicAuth&) const = default;
};

// The partial mesh of large fleets (mesh_schedule.h): bounds per host and
// where a peer's group comes from.
struct MeshConfig {
  int max_peers = 64;       // peers probed per rotation period; 0: all
  int representatives = 3;  // hosts of every other group per period
  // Every host pair of 10,000 hosts in ToRs of 32 within the hour
  // (426 periods at the default bounds; rnic_fleet_sim).
  std::chrono::milliseconds rotation{8000};
  std::string group_label = "tor";  // peer label naming a peer's group
  // Peers of the own group kept with per-pair series (the rest count per
  // group): enough sources per host for the suspect-host alert.
  int detail_peers = 8;
  bool operator==(const MeshConfig&) const = default;
};

// Peers taken from this host's established rdma_cm connections
// (live_peers.h): the hosts its applications talk to, probed first.
struct LivePeersConfig {
  bool enabled = false;
  int max_peers = 8;  // hosts kept, the most connected first
  bool operator==(const LivePeersConfig&) const = default;
};

struct FabricConfig {
  bool enabled = true;
  std::vector<PeerSpec> peers;               // static list
  std::vector<std::string> file_sd;          // Prometheus file_sd files
  std::string dns;                           // name whose A records are peers
  std::chrono::milliseconds refresh{30000};  // file mtime / DNS re-resolve
  int exchange_port = kDefaultExchangePort;
  bool exchange_https = false;  // exchange_scheme: https
  ExchangeTlsConfig exchange_tls;
  std::optional<ExchangeBasicAuth> exchange_basic_auth;
  std::vector<probe::Operation> operations = {probe::Operation::kSend,
                                              probe::Operation::kWrite};
  std::vector<std::uint32_t> sizes = {64};
  std::chrono::milliseconds interval{1000};
  int iterations = 5;
  std::chrono::milliseconds op_timeout{500};
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_max{60000};
  // Connections per device at once: the responder's cap in a full mesh;
  // in a partial mesh the bound of both directions together.
  int max_connections = 64;
  // RC local ACK timeout exponent (4.096 us x 2^n) of both ends' QPs, set
  // with RDMA_OPTION_ID_ACK_TIMEOUT: rdma_cm's RoCE default (about 1 s)
  // would turn one lost packet into a probe timeout. -1: rdma_cm's default.
  int ack_timeout = 14;  // about 67 ms
  double cpu_budget_percent = 1.0;
  Pairing pairing = Pairing::kSubnet;
  bool intra_host = true;  // probe between this host's own devices too
  std::string group_by;    // peer label histograms are aggregated by
  MeshConfig mesh;
  LivePeersConfig live_peers;

  [[nodiscard]] std::uint32_t MaxSize() const;
  [[nodiscard]] bool Wants(probe::Operation op) const;
};

// Parses the `fabric:` node (null/absent: defaults). Errors name the key,
// e.g. "fabric.sizes[1]: must be between 1 and 65536".
[[nodiscard]] Result<FabricConfig> ParseFabricConfig(const YAML::Node& node);
// The section's declared keys, for the configuration reference.
[[nodiscard]] config::SectionDoc FabricConfigDoc();

// "host", "host:port", "[v6]:port" -> host and port (0 when absent).
[[nodiscard]] Result<std::pair<std::string, int>> SplitHostPort(
    const std::string& text);

// Largest message the responder accepts (and an initiator may ask for).
inline constexpr std::uint32_t kMaxMessage = 65536;

}  // namespace rnic::fabric
