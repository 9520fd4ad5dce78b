#include "collectors/health/expect_config.h"

#include <charconv>

#include "collectors/common/yaml_map.h"
#include "collectors/common/yaml_scalar.h"

namespace rnic::expect {
namespace {

constexpr std::string_view kNames[] = {
    "active_ports", "link_layer",      "rate_gbps",
    "mtu",          "pfc_priorities",  "trust",
    "ecn_priority", "numa_local_irqs", "firmware",
};

// A YAML scalar as an integer in [lo, hi]; the error is the reason alone
// (the caller names the entry and key).
Result<long> Integer(const YAML::Node& n, long lo, long hi) {
  auto v = yaml::Int(n, "", lo, hi);
  if (!v) return v.error();
  return static_cast<long>(*v);
}

Result<Check> ParseCheck(CheckKind kind, const YAML::Node& n) {
  Check c{.kind = kind};
  switch (kind) {
    case CheckKind::kActivePorts:
    case CheckKind::kMtu:
    case CheckKind::kEcnPriority: {
      const long hi = kind == CheckKind::kEcnPriority ? 7
                      : kind == CheckKind::kMtu       ? 65535
                                                      : 1024;
      const long lo = kind == CheckKind::kMtu ? 68 : 0;
      auto v = Integer(n, lo, hi);
      if (!v.ok()) return v.error();
      c.number = static_cast<double>(*v);
      c.expected = std::to_string(*v);
      return c;
    }
    case CheckKind::kRateGbps: {
      const std::string s = n.IsScalar() ? n.Scalar() : "";
      double v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || p != s.data() + s.size() ||
          !(v > 0)) {
        return Error{"must be a positive number of Gb/s"};
      }
      c.number = v;
      c.expected = s;
      return c;
    }
    case CheckKind::kPfcPriorities: {
      if (!n.IsSequence()) {
        return Error{"must be a list of priorities 0-7 ([] for none)"};
      }
      for (const auto& item : n) {
        auto p = Integer(item, 0, 7);
        if (!p.ok()) return Error{"priorities " + p.error().message};
        c.pfc_mask |= static_cast<std::uint8_t>(1u << *p);
      }
      for (int p = 0; p < 8; ++p) {
        if (!((c.pfc_mask >> p) & 1)) continue;
        if (!c.expected.empty()) c.expected += ",";
        c.expected += std::to_string(p);
      }
      if (c.expected.empty()) c.expected = "none";
      return c;
    }
    case CheckKind::kTrust:
      if (!n.IsScalar() || (n.Scalar() != "dscp" && n.Scalar() != "pcp")) {
        return Error{"must be dscp or pcp"};
      }
      c.text = c.expected = n.Scalar();
      return c;
    case CheckKind::kNumaLocalIrqs:
      if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false")) {
        return Error{"must be true or false"};
      }
      c.flag = n.Scalar() == "true";
      c.expected = n.Scalar();
      return c;
    case CheckKind::kLinkLayer:
    case CheckKind::kFirmware:
      if (!n.IsScalar() || n.Scalar().empty()) {
        return Error{"must be a non-empty string"};
      }
      c.text = c.expected = n.Scalar();
      return c;
  }
  return Error{"unknown check"};
}

}  // namespace

std::string_view CheckName(CheckKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

Result<std::vector<Entry>> ParseExpectConfig(const YAML::Node& node) {
  std::vector<Entry> out;
  if (!node || node.IsNull()) return out;
  if (!node.IsSequence()) {
    // A map's odd keys are named first, as in every other section.
    if (auto keys = MapKeys(node, "expect"); !keys.ok()) return keys.error();
    return Error{"expect: must be a list of entries (- device: <regex> ...)"};
  }
  std::size_t i = 0;
  for (const auto& item : node) {
    const std::string where = "expect[" + std::to_string(i++) + "]";
    if (!item.IsMap()) return Error{where + ": must be a map"};
    if (Status st =
            CheckMapKeys(item, where,
                         {"device", "active_ports", "link_layer", "rate_gbps",
                          "mtu", "pfc_priorities", "trust", "ecn_priority",
                          "numa_local_irqs", "firmware"});
        !st.ok()) {
      return st.error();
    }
    Entry e;
    const YAML::Node dev = item["device"];
    if (!dev || !dev.IsScalar() || dev.Scalar().empty()) {
      return Error{where + ".device: required, a regex of device names"};
    }
    auto re = CompiledRegex::Compile(dev.Scalar());
    if (!re.ok()) return Error{where + ".device: " + re.error().message};
    e.device = std::move(re).value();
    for (std::size_t k = 0; k < std::size(kNames); ++k) {
      const YAML::Node v = item[std::string(kNames[k])];
      if (!v) continue;
      auto c = ParseCheck(static_cast<CheckKind>(k), v);
      if (!c.ok()) {
        return Error{where + "." + std::string(kNames[k]) + ": " +
                     c.error().message};
      }
      e.checks.push_back(std::move(c).value());
    }
    if (e.checks.empty()) {
      return Error{where +
                   ": no check given (active_ports, link_layer, "
                   "rate_gbps, mtu, pfc_priorities, trust, "
                   "ecn_priority, numa_local_irqs, firmware)"};
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace rnic::expect
