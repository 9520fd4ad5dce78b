#include "collectors/common/yaml_scalar.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "collectors/common/duration.h"

namespace rnic::yaml {
namespace {

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

Error KeyError(const std::string& where, const std::string& what) {
  return Error{where.empty() ? what : where + ": " + what};
}

Result<std::string> Text(const YAML::Node& n, const std::string& where) {
  if (!n.IsScalar()) return KeyError(where, "must be a scalar");
  return n.Scalar();
}

Result<std::int64_t> Int(const YAML::Node& n, const std::string& where,
                         std::int64_t lo, std::int64_t hi) {
  if (!n.IsScalar()) return KeyError(where, "must be an integer");
  const std::string& s = n.Scalar();
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
    return KeyError(where, "must be an integer, not '" + s + "'");
  }
  if (v < lo || v > hi) {
    return KeyError(where, "must be between " + std::to_string(lo) + " and " +
                               std::to_string(hi));
  }
  return v;
}

Result<double> Number(const YAML::Node& n, const std::string& where, double lo,
                      double hi) {
  if (!n.IsScalar()) return KeyError(where, "must be a number");
  const std::string& s = n.Scalar();
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() ||
      !std::isfinite(v)) {
    return KeyError(where, "must be a number, not '" + s + "'");
  }
  if (v < lo || v > hi) {
    return KeyError(where,
                    "must be between " + Short(lo) + " and " + Short(hi));
  }
  return v;
}

Result<bool> Bool(const YAML::Node& n, const std::string& where) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return KeyError(where, "must be true or false, not '" + s + "'");
  }
  return KeyError(where, "must be true or false");
}

Result<std::chrono::milliseconds> Duration(const YAML::Node& n,
                                           const std::string& where,
                                           std::chrono::milliseconds lo,
                                           std::chrono::milliseconds hi) {
  if (!n.IsScalar()) return KeyError(where, "must be a duration like 1s");
  auto d = ParseDuration(n.Scalar());
  if (!d) return KeyError(where, d.error().message);
  if (*d < lo || *d > hi) {
    return KeyError(where, "must be between " + std::to_string(lo.count()) +
                               "ms and " + std::to_string(hi.count()) + "ms");
  }
  return *d;
}

}  // namespace rnic::yaml
