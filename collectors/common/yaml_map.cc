#include "collectors/common/yaml_map.h"

#include <algorithm>
#include <set>

namespace rnic {
namespace {

// A key as the user wrote it, on one line and short: [a, b], {a: 1}.
std::string Shown(const YAML::Node& key) {
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e.SetMapFormat(YAML::Flow);
  e << key;
  std::string s = e.good() ? e.c_str() : "?";
  std::replace(s.begin(), s.end(), '\n', ' ');
  constexpr std::size_t kMax = 40;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...";
  return s;
}

}  // namespace

Result<std::vector<std::string>> MapKeys(const YAML::Node& node,
                                         std::string_view where) {
  std::vector<std::string> keys;
  if (!node || node.IsNull()) return keys;
  if (!node.IsMap()) return Error{std::string(where) + ": must be a map"};
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) {
      return Error{std::string(where) + ": a key must be a plain name, not " +
                   Shown(kv.first)};
    }
    const std::string& key = kv.first.Scalar();
    // yaml-cpp keeps both; lookups would see only the first.
    if (!seen.insert(key).second) {
      return Error{std::string(where) + "." + key + ": given twice"};
    }
    keys.push_back(key);
  }
  return keys;
}

Status CheckMapKeys(const YAML::Node& node, std::string_view where,
                    std::initializer_list<std::string_view> known) {
  auto keys = MapKeys(node, where);
  if (!keys.ok()) return keys.error();
  for (const auto& k : *keys) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      return Error{std::string(where) + "." + k + ": unknown key"};
    }
  }
  return Status::Ok();
}

}  // namespace rnic
