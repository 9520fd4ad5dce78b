#include "exporter/config_file.h"

#include <utility>

#include "collectors/common/yaml_map.h"

namespace rnic {

Result<std::map<std::string, YAML::Node>> LoadConfigFile(
    const std::string& path, const std::vector<CollectorSpec>& specs) {
  std::map<std::string, YAML::Node> out;
  if (path.empty()) return out;
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Error{"config file " + path + ": cannot be read"};
  } catch (const YAML::Exception& e) {
    return Error{"config file " + path + ": " + e.what()};
  }
  if (root.IsNull()) return out;
  if (!root.IsMap())
    return Error{"config file " + path + ": top level must be a map"};
  auto keys = MapKeys(root, "config file " + path);
  if (!keys.ok()) return keys.error();
  for (const auto& key : *keys) {
    const CollectorSpec* spec = nullptr;
    for (const auto& s : specs) {
      if (s.name == key) spec = &s;
    }
    if (spec == nullptr) {
      return Error{"config file " + path + ": unknown key '" + key +
                   "' (top-level keys are collector names)"};
    }
    const YAML::Node section = std::as_const(root)[key];
    // Every section is checked, the disabled collectors' too. A collector
    // without settings takes an empty section at most.
    Status st = spec->check_config ? spec->check_config(section)
                                   : CheckMapKeys(section, key, {});
    if (!st.ok()) {
      return Error{
          "config file " + path + ": " + st.error().message +
          (spec->check_config ? "" : " (this collector has no settings)")};
    }
    out[key] = section;
  }
  return out;
}

}  // namespace rnic
