// Table-driven parsing of netlink attributes (the job nla_parse() does
// with an nla_policy, kept here so we decide what is fatal): one pass over a
// message or a nest, each known attribute checked against the expected
// kind, attributes we do not know skipped (newer kernels add some every
// release), malformed lengths reported as errors.
#pragma once

#include <linux/netlink.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "collectors/common/result.h"
#include "collectors/netlink/rdma_nl_uapi.h"

namespace rnic::nl {

enum class AttrKind : std::uint8_t {
  kUnknown = 0,  // not in the table: ignored
  kU8,
  kU16,
  kU32,
  kU64,
  kString,  // NUL-terminated
  kNested,
  kBinary,  // any length
};

// The RDMA policy: expected kind of every attribute number below
// kAttrKnownEnd.
[[nodiscard]] AttrKind PolicyKind(std::uint16_t type);

// A policy is the expected kind of each attribute number, indexed by number
// (generic netlink families declare one per nest, e.g. ethtool_policy.h).
using AttrPolicy = std::span<const AttrKind>;
// Attribute numbers every policy must stay below (the storage of Attrs).
inline constexpr std::size_t kMaxPolicyAttrs = kAttrKnownEnd;

// A view of one attribute's payload.
struct AttrView {
  const std::uint8_t* data = nullptr;
  std::uint16_t len = 0;
};

class Attrs {
 public:
  // The RDMA netlink policy.
  Attrs();
  // Another family's policy; it must outlive the Attrs and hold at most
  // kMaxPolicyAttrs entries.
  explicit Attrs(AttrPolicy policy);

  // Parses the attributes of a whole message (after the nlmsghdr).
  [[nodiscard]] Status ParseMessage(const nlmsghdr& msg);
  // Parses the attributes inside a nest.
  [[nodiscard]] Status ParseNested(AttrView nest);
  [[nodiscard]] Status Parse(const std::uint8_t* data, std::size_t len);

  [[nodiscard]] bool Has(std::uint16_t type) const {
    return type < policy_.size() && seen_[type];
  }
  [[nodiscard]] std::optional<std::uint8_t> U8(std::uint16_t type) const;
  [[nodiscard]] std::optional<std::uint16_t> U16(std::uint16_t type) const;
  [[nodiscard]] std::optional<std::uint32_t> U32(std::uint16_t type) const;
  [[nodiscard]] std::optional<std::uint64_t> U64(std::uint16_t type) const;
  // Without the trailing NUL.
  [[nodiscard]] std::optional<std::string_view> Str(std::uint16_t type) const;
  [[nodiscard]] std::optional<AttrView> Nested(std::uint16_t type) const;
  // A kBinary attribute's payload.
  [[nodiscard]] std::optional<AttrView> Binary(std::uint16_t type) const;

 private:
  [[nodiscard]] bool Is(std::uint16_t type, AttrKind kind) const {
    return Has(type) && policy_[type] == kind;
  }
  AttrPolicy policy_;
  std::array<AttrView, kAttrKnownEnd> attrs_{};
  std::array<bool, kAttrKnownEnd> seen_{};
};

// Calls `fn` for each attribute directly inside `nest` (typically the
// *_ENTRY nests of a table). Malformed framing is an error.
[[nodiscard]] Status ForEachNested(
    AttrView nest,
    const std::function<Status(std::uint16_t type, AttrView)>& fn);

}  // namespace rnic::nl
