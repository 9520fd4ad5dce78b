// The expect section of --config.file: the configuration a fleet's RDMA
// devices should have, per device-name regex. Parsed and checked once at
// start-up; every error names the entry and key ("expect[1].mtu: ...").
//
//   expect:
//     - device: ^mlx5_          # ECMAScript, unanchored; first match wins
//       active_ports: 2
//       link_layer: Ethernet
//       rate_gbps: 200
//       mtu: 9000
//       pfc_priorities: [3]     # exactly these; [] = PFC off
//       trust: dscp             # or pcp
//       ecn_priority: 3
//       numa_local_irqs: true
//       firmware: 28.39.1002
//       gpudirect: true         # a GPU and a GPUDirect RDMA path to it
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/compiled_regex.h"
#include "collectors/common/config_schema.h"
#include "collectors/common/result.h"

namespace rnic::expect {

enum class CheckKind {
  kActivePorts,
  kLinkLayer,
  kRateGbps,
  kMtu,
  kPfcPriorities,
  kTrust,
  kEcnPriority,
  kNumaLocalIrqs,
  kFirmware,
  kGpuDirect,
};

// The config key, which is also the `check` label value.
[[nodiscard]] std::string_view CheckName(CheckKind kind);

struct Check {
  CheckKind kind;
  std::string expected;  // the `expected` label: canonical text of the value
  double number = 0;     // active_ports, rate_gbps, mtu, ecn_priority
  std::string text;      // link_layer, trust, firmware
  std::uint8_t pfc_mask = 0;  // bit p = priority p
  bool flag = false;          // numa_local_irqs, gpudirect
};

struct Entry {
  CompiledRegex device;
  std::vector<Check> checks;  // in CheckKind order
};

// Null: no entries. Otherwise a list of maps, each with `device` and at
// least one check.
[[nodiscard]] Result<std::vector<Entry>> ParseExpectConfig(
    const YAML::Node& node);
// The section's declared keys, for the configuration reference.
[[nodiscard]] config::SectionDoc ExpectConfigDoc();

}  // namespace rnic::expect
