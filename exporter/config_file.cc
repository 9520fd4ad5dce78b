#include "exporter/config_file.h"

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
  for (const auto& kv : root) {
    // as<std::string>() throws on a list or map key ("[a, b]: 1").
    if (!kv.first.IsScalar()) {
      return Error{"config file " + path +
                   ": a top-level key must be a collector name, not a list "
                   "or a map"};
    }
    const std::string key = kv.first.as<std::string>();
    bool known = false;
    for (const auto& s : specs) known = known || s.name == key;
    if (!known) {
      return Error{"config file " + path + ": unknown key '" + key +
                   "' (top-level keys are collector names)"};
    }
    out[key] = kv.second;
  }
  return out;
}

}  // namespace rnic
