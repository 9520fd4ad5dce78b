// --config.file: YAML for what flags express badly (probe settings, perf
// events). Top-level keys are collector names; anything else is an error.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/common/result.h"

namespace rnic {

// Collector name -> its section. An empty path gives an empty map.
[[nodiscard]] Result<std::map<std::string, YAML::Node>> LoadConfigFile(
    const std::string& path, const std::vector<CollectorSpec>& specs);

}  // namespace rnic
