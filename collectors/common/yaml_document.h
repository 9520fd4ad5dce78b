// The one YAML document of a configuration file. yaml-cpp's LoadAll() never
// returns on some malformed input (found by fuzz_web_config), so a second
// document is detected by asking the parser for at most two.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "collectors/common/result.h"

namespace rnic {

// The first document of `text` (Null when empty); an error naming the
// problem when the YAML is malformed or a second document follows.
[[nodiscard]] Result<YAML::Node> LoadOneDocument(const std::string& text);

}  // namespace rnic
