// Keys of a --config.file map, checked before any is read as text. yaml-cpp
// throws when a key that is a list or a map (`[a, b]: 1`, `{a: 1}: 2`) is
// read as a string; every section parser goes through here first, so such a
// key is an error that names the section, not an abort.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

// The keys of `node`, in file order. Null or absent: no keys. Errors name
// `where`: "<where>: must be a map", "<where>: a key must be a plain name,
// not [a, b]", "<where>.<key>: given twice".
[[nodiscard]] Result<std::vector<std::string>> MapKeys(const YAML::Node& node,
                                                       std::string_view where);

// MapKeys, and each key one of `known`, else "<where>.<key>: unknown key".
[[nodiscard]] Status CheckMapKeys(
    const YAML::Node& node, std::string_view where,
    std::initializer_list<std::string_view> known);

}  // namespace rnic
