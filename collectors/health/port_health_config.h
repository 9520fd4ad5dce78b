// The port_health section of --config.file: the thresholds of the port
// health rules (collectors/health/port_health_rules.h), each declared once
// with its default and range. Absent: the defaults.
//
//   port_health:
//     drop_window: 10s
//     flap_window: 10m
//     flap_count: 3
//     ber_window: 5m
//     ber_max: 1e-12
//     ber_max_by_rate: [{rate_gbps: 400, ber_max: 1e-13}]
//     aer_fatal_hold: 10m
//     recovery_hold: 30s
//     read_deadline: 1s
#pragma once

#include <yaml-cpp/yaml.h>

#include "collectors/common/config_schema.h"
#include "collectors/common/result.h"
#include "collectors/health/port_health_rules.h"

namespace rnic::health {

[[nodiscard]] Result<Thresholds> ParsePortHealthConfig(const YAML::Node& node);
[[nodiscard]] config::SectionDoc PortHealthConfigDoc();

}  // namespace rnic::health
