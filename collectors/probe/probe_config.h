// Settings of the active verbs probe: the `probe:` section of --config.file.
// Every field has a default, so an absent section is a working probe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "collectors/common/config_schema.h"
#include "collectors/common/result.h"
#include "collectors/probing/operation.h"

namespace rnic::probe {

struct ProbeConfig {
  bool enabled = true;
  std::vector<std::string> devices;  // empty: every device
  std::vector<int> ports;            // empty: every port
  std::vector<Operation> operations = {
      Operation::kSend, Operation::kWrite, Operation::kRead,
      Operation::kAtomicCmpSwap, Operation::kAtomicFetchAdd};
  std::vector<std::uint32_t> sizes = {64, 4096};  // atomics always use 8
  std::chrono::milliseconds interval{1000};
  int iterations = 10;  // timed pings per operation and size each round
  std::chrono::milliseconds op_timeout{1000};
  // Share of one core the probe threads may use on average, in percent;
  // rounds are spaced out beyond `interval` when a device makes them
  // dearer than that. 0: no limit.
  double cpu_budget_percent = 1.0;
  int sq_depth = 32;
  int rq_depth = 32;
  int cq_depth = 64;
  int gid_index = -1;  // -1: RoCEv2 IPv4-mapped GID, else the first usable
  std::vector<std::uint64_t> mr_sizes = {4096, 1u << 20, 64u << 20};
  std::chrono::milliseconds mr_interval{60000};
  bool qp_counters = true;       // bind the probe QPs to their own counter
  bool two_sided_write = false;  // WRITE answered by a responder thread
  bool split_cpus = true;        // WRITE responder off the probe thread's CPU

  [[nodiscard]] std::uint32_t MaxSize() const;
  [[nodiscard]] bool WantsDevice(const std::string& name) const;
  [[nodiscard]] bool WantsPort(int port) const;
};

// Parses the `probe:` node (null/absent: defaults). Errors name the key,
// e.g. "probe.sizes[1]: must be between 1 and 1048576".
[[nodiscard]] Result<ProbeConfig> ParseProbeConfig(const YAML::Node& node);
// The section's declared keys, for the configuration reference.
[[nodiscard]] config::SectionDoc ProbeConfigDoc();

}  // namespace rnic::probe
