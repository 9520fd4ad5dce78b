// Typed readers of --config.file values, for every section's parser. Each
// error names the value by its full path: "<where>: <reason>", e.g.
// "probe.sizes[1]: must be between 1 and 1048576" (just "<reason>" when
// `where` is empty, for callers that name the value themselves).
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "collectors/common/result.h"

namespace rnic::yaml {

// "<where>: <what>", or `what` alone when `where` is empty.
[[nodiscard]] Error KeyError(const std::string& where, const std::string& what);

// A scalar as written.
[[nodiscard]] Result<std::string> Text(const YAML::Node& n,
                                       const std::string& where);
// A decimal integer in [lo, hi].
[[nodiscard]] Result<std::int64_t> Int(const YAML::Node& n,
                                       const std::string& where,
                                       std::int64_t lo, std::int64_t hi);
// A finite number in [lo, hi].
[[nodiscard]] Result<double> Number(const YAML::Node& n,
                                    const std::string& where, double lo,
                                    double hi);
// true or false (the YAML 1.2 core schema, as the flags take them).
[[nodiscard]] Result<bool> Bool(const YAML::Node& n, const std::string& where);
// A Prometheus-style duration ("1m30s", the flags' syntax) in [lo, hi].
[[nodiscard]] Result<std::chrono::milliseconds> Duration(
    const YAML::Node& n, const std::string& where, std::chrono::milliseconds lo,
    std::chrono::milliseconds hi);

// A sequence, each item read by `item(node, "<where>[i]")`, which returns a
// Result<T>.
template <typename F>
[[nodiscard]] auto List(const YAML::Node& n, const std::string& where, F item)
    -> Result<std::vector<typename std::invoke_result_t<
        F, const YAML::Node&, const std::string&>::value_type>> {
  using T = typename std::invoke_result_t<F, const YAML::Node&,
                                          const std::string&>::value_type;
  if (!n.IsSequence()) return KeyError(where, "must be a list");
  std::vector<T> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    auto v = item(n[i], where + "[" + std::to_string(i) + "]");
    if (!v) return v.error();
    out.push_back(std::move(*v));
  }
  return out;
}

}  // namespace rnic::yaml
