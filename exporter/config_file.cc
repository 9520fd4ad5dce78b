#include "exporter/config_file.h"

#include <utility>

#include "collectors/common/bounded_file.h"
#include "collectors/common/yaml_document.h"
#include "collectors/common/yaml_map.h"

namespace rnic {

Result<std::map<std::string, YAML::Node>> LoadConfigFile(
    const std::string& path, const std::vector<CollectorSpec>& specs) {
  std::map<std::string, YAML::Node> out;
  if (path.empty()) return out;
  // A directory, a device or a runaway file is refused before parsing: a
  // YAML node costs about a hundred times its text.
  auto text = ReadBoundedFile(path, kConfigFileLimit);
  if (!text) return Error{"config file " + text.error().ToString()};
  // A second document (after "---") is refused, not silently ignored.
  auto doc = LoadOneDocument(*text);
  if (!doc) return Error{"config file " + path + ": " + doc.error().ToString()};
  const YAML::Node root = *doc;
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
