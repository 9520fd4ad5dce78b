// Table-driven parsing of netlink attributes, for every netlink user (RDMA,
// ethtool's generic netlink, dcbnl): one pass over a message or a nest,
// each known attribute checked against the expected kind, attributes we do
// not know skipped (newer kernels add some every release), malformed
// lengths reported as errors. The job libnl-3's nla_parse() does with an
// nla_policy, done in line: collectors/netlink/README.md says why.
#pragma once

#include <linux/netlink.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "collectors/common/result.h"
#include "collectors/nl/rdma_nl_uapi.h"

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
    return type < policy_.size() && parse_ != 0 && seen_[type] == parse_;
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
  // Storage without initializers: a slot is read only when seen_ says the
  // current parse set it, so neither construction nor a parse clears the
  // table (2.7 KiB per Attrs when it was zeroed; under TCG that was a
  // visible part of a scrape, which builds about 150 of them).
  struct Slot {
    const std::uint8_t* data;
    std::uint16_t len;
  };
  AttrPolicy policy_;
  std::array<Slot, kAttrKnownEnd> attrs_;
  // The number of the parse that last set each slot; parse_ is the current
  // one (numbers start at 1, so a fresh table has none set).
  std::array<std::uint16_t, kAttrKnownEnd> seen_{};
  std::uint16_t parse_ = 0;
};

namespace detail {
// Netlink attribute flags masked off the type.
inline constexpr std::uint16_t kAttrTypeMask =
    static_cast<std::uint16_t>(~(NLA_F_NESTED | NLA_F_NET_BYTEORDER));

// Steps over `len` bytes of attributes, calling fn(type, view) for each.
// A template, so a parser's per-attribute step is inlined, not an indirect
// call.
template <typename Fn>
[[nodiscard]] Status WalkAttrs(const std::uint8_t* data, std::size_t len,
                               Fn&& fn) {
  std::size_t off = 0;
  while (off + NLA_HDRLEN <= len) {
    nlattr hdr;
    std::memcpy(&hdr, data + off, sizeof(hdr));
    if (hdr.nla_len < NLA_HDRLEN || hdr.nla_len > len - off) {
      return Error{"netlink: bad attribute length", EBADMSG};
    }
    const AttrView view{data + off + NLA_HDRLEN,
                        static_cast<std::uint16_t>(hdr.nla_len - NLA_HDRLEN)};
    Status st =
        fn(static_cast<std::uint16_t>(hdr.nla_type & kAttrTypeMask), view);
    if (!st.ok()) return st;
    off += NLA_ALIGN(hdr.nla_len);
  }
  // Fewer than a header's worth of trailing bytes is padding; anything a
  // header could start in but does not fit was caught above.
  return Status::Ok();
}
}  // namespace detail

// Calls `fn(type, view)` (returning Status) for each attribute directly
// inside `nest` (typically the *_ENTRY nests of a table). Malformed framing
// is an error.
template <typename Fn>
[[nodiscard]] Status ForEachNested(AttrView nest, Fn&& fn) {
  return detail::WalkAttrs(nest.data, nest.len, std::forward<Fn>(fn));
}

}  // namespace rnic::nl
