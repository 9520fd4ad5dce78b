#include "collectors/health/expect_config.h"

#include <charconv>
#include <iterator>

#include "collectors/common/config_schema.h"

namespace rnic::expect {
namespace {

constexpr std::string_view kNames[] = {
    "active_ports",   "link_layer", "rate_gbps",    "mtu",
    "pfc_priorities", "trust",      "ecn_priority", "numa_local_irqs",
    "firmware",       "gpudirect",
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
    case CheckKind::kGpuDirect:
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

// How the reference shows each check, in CheckKind order.
struct CheckDoc {
  const char* type;
  const char* range;
  const char* doc;
};
constexpr CheckDoc kDocs[] = {
    {"int", "0..1024", "ports in state ACTIVE"},
    {"string", "", "link layer of every port (`InfiniBand`, `Ethernet`)"},
    {"number", "> 0", "port rate in Gb/s (ports/N/rate)"},
    {"int", "68..65535", "netdev MTU of Ethernet ports"},
    {"list of ints", "0..7",
     "exactly these PFC-enabled priorities; `[]`: none"},
    {"enum", "`dscp`, `pcp`", "`dscp`: DSCP APP entries present; `pcp`: none"},
    {"int", "0..7", "RoCE ECN (np and rp) enabled on this priority"},
    {"bool", "", "no IRQ of the device allowed off its NUMA node"},
    {"string", "", "firmware version"},
    {"bool", "", "GPUDirect RDMA possible (gpu collector's checks)"},
};
static_assert(std::size(kDocs) == std::size(kNames));

config::Value<Check> CheckValue(CheckKind kind) {
  const CheckDoc& d = kDocs[static_cast<std::size_t>(kind)];
  config::Value<Check> v;
  v.doc = {d.type, d.range, {}, false};
  v.parse = [kind](const YAML::Node& n,
                   const std::string& where) -> Result<Check> {
    auto c = ParseCheck(kind, n);
    if (!c.ok()) return yaml::KeyError(where, c.error().message);
    return c;
  };
  v.show = [](const Check&) { return std::string(); };
  return v;
}

config::Value<CompiledRegex> DeviceRegex() {
  config::Value<CompiledRegex> v;
  v.doc = {"regex", "", {}, false};
  v.parse = [](const YAML::Node& n,
               const std::string& where) -> Result<CompiledRegex> {
    if (!n.IsScalar() || n.Scalar().empty()) {
      return yaml::KeyError(where, "must be a regex of device names");
    }
    auto re = CompiledRegex::Compile(n.Scalar());
    if (!re.ok()) return yaml::KeyError(where, re.error().message);
    return re;
  };
  v.show = [](const CompiledRegex&) { return std::string(); };
  return v;
}

// The `expect:` entries' keys, each declared once
// (collectors/common/config_schema.h).
const config::Section<std::vector<Entry>>& Schema() {
  static const config::Section<std::vector<Entry>> section = [] {
    config::MapSchema<Entry> s;
    s.Key("device", &Entry::device, DeviceRegex(),
          "device names the entry applies to (ECMAScript, unanchored; the "
          "first entry that matches applies)")
        .Required("a device");
    // Declared in CheckKind order, which is the order checks are kept in.
    for (std::size_t k = 0; k < std::size(kNames); ++k) {
      s.Key<Check>(
          std::string(kNames[k]),
          [](Entry& e, Check&& c) { e.checks.push_back(std::move(c)); },
          CheckValue(static_cast<CheckKind>(k)), kDocs[k].doc);
    }
    s.Then([](Entry& e, const std::string& where) -> Status {
      if (e.checks.empty()) {
        std::string names;
        for (auto n : kNames)
          names += (names.empty() ? "" : ", ") + std::string(n);
        return yaml::KeyError(where, "no check given (" + names + ")");
      }
      return Status::Ok();
    });
    auto list = config::List(config::Map(std::move(s)));
    list.parse = [items = list.parse](
                     const YAML::Node& n,
                     const std::string& where) -> Result<std::vector<Entry>> {
      if (n.IsMap()) {
        // A map's odd keys are named first, as in every other section.
        if (auto keys = MapKeys(n, where); !keys.ok()) return keys.error();
        return yaml::KeyError(
            where, "must be a list of entries (- device: <regex> ...)");
      }
      return items(n, where);
    };
    return config::Section<std::vector<Entry>>{
        "expect",
        "The configuration devices should have (`expect` collector); "
        "[details](collectors/health/README.md#expect).",
        std::move(list)};
  }();
  return section;
}

}  // namespace

std::string_view CheckName(CheckKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

Result<std::vector<Entry>> ParseExpectConfig(const YAML::Node& node) {
  return Schema().Parse(node);
}

config::SectionDoc ExpectConfigDoc() { return Schema().Doc(); }

}  // namespace rnic::expect
