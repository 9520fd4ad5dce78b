// Netlink attributes read with libnl-3: nla_parse() against an nla_policy
// (one per message or nest), nla_get_*() for values, nla_for_each_attr for
// repeated attributes. A thin wrapper so that malformed input is an error
// value (EBADMSG), never a crash and never half a table: libnl validates
// each attribute against the policy, but stops silently at an attribute
// whose length runs past the end, so Attrs and ForEachNested also check that
// the walk reached the end. Attribute numbers a policy does not know are
// skipped (newer kernels add some every release).
#pragma once

#include <linux/netlink.h>
#include <netlink/attr.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "collectors/common/result.h"
#include "collectors/netlink/rdma_nl_uapi.h"

namespace rnic::nl {

// A policy is libnl's: the expected type of each attribute number, indexed
// by number (NLA_U8 ... NLA_STRING, NLA_NESTED, NLA_BINARY for a payload
// of any length, NLA_UNSPEC for a number not read).
using AttrPolicy = std::span<const nla_policy>;
// Attribute numbers every policy must stay below (the storage of Attrs).
inline constexpr std::size_t kMaxPolicyAttrs = kAttrKnownEnd;

// The RDMA netlink policy for attribute numbers 0..last (a nest is parsed
// no further than what is read from it: nla_parse clears the table up to
// its last number at every parse).
[[nodiscard]] AttrPolicy RdmaPolicy(std::uint16_t last = kAttrKnownEnd - 1);

// A view of one attribute's payload (4-byte aligned, as netlink lays it).
struct AttrView {
  const std::uint8_t* data = nullptr;
  std::uint16_t len = 0;
};

class Attrs {
 public:
  // The whole RDMA netlink policy.
  Attrs() : Attrs(RdmaPolicy()) {}
  // Another policy; it must outlive the Attrs and hold at most
  // kMaxPolicyAttrs entries.
  explicit Attrs(AttrPolicy policy);

  // Parses the attributes of a whole message, after its nlmsghdr and the
  // family's fixed header of `hdrlen` bytes (genlmsghdr, dcbmsg).
  [[nodiscard]] Status ParseMessage(const nlmsghdr& msg,
                                    std::size_t hdrlen = 0);
  // Parses the attributes inside a nest.
  [[nodiscard]] Status ParseNested(AttrView nest) {
    return Parse(nest.data, nest.len);
  }
  [[nodiscard]] Status Parse(const std::uint8_t* data, std::size_t len);

  [[nodiscard]] bool Has(std::uint16_t type) const {
    return parsed_ && type < policy_.size() && tb_[type] != nullptr;
  }
  [[nodiscard]] std::optional<std::uint8_t> U8(std::uint16_t type) const;
  [[nodiscard]] std::optional<std::uint16_t> U16(std::uint16_t type) const;
  [[nodiscard]] std::optional<std::uint32_t> U32(std::uint16_t type) const;
  [[nodiscard]] std::optional<std::uint64_t> U64(std::uint16_t type) const;
  // Without the trailing NUL.
  [[nodiscard]] std::optional<std::string_view> Str(std::uint16_t type) const;
  [[nodiscard]] std::optional<AttrView> Nested(std::uint16_t type) const;
  // An NLA_BINARY attribute's payload.
  [[nodiscard]] std::optional<AttrView> Binary(std::uint16_t type) const;

 private:
  // Present, and declared `kind` by the policy: a value is read only as
  // the type the policy validated its length for.
  [[nodiscard]] const nlattr* Get(std::uint16_t type,
                                  std::uint16_t kind) const {
    return Has(type) && policy_[type].type == kind ? tb_[type] : nullptr;
  }
  AttrPolicy policy_;
  // Filled by nla_parse (which clears it first); read only once a parse
  // succeeded, so construction does not clear it.
  std::array<nlattr*, kMaxPolicyAttrs> tb_;
  bool parsed_ = false;
};

// Calls `fn(type, view)` (returning Status) for each attribute of `len`
// bytes at `data` (typically the *_ENTRY nests of a table, or attributes
// that repeat). An attribute running past the end is an error.
template <typename Fn>
[[nodiscard]] Status ForEachAttr(const std::uint8_t* data, std::size_t len,
                                 Fn&& fn) {
  // libnl's iterator takes a non-const head; it only reads.
  auto* head = reinterpret_cast<nlattr*>(const_cast<std::uint8_t*>(data));
  nlattr* pos = nullptr;
  int rem = 0;
  nla_for_each_attr(pos, head, static_cast<int>(len), rem) {
    Status st = fn(static_cast<std::uint16_t>(nla_type(pos)),
                   AttrView{static_cast<const std::uint8_t*>(nla_data(pos)),
                            static_cast<std::uint16_t>(nla_len(pos))});
    if (!st.ok()) return st;
  }
  // Fewer than a header's bytes left is padding; more, an attribute whose
  // length does not fit.
  if (rem >= static_cast<int>(NLA_HDRLEN)) {
    return Error{"netlink: bad attribute length", EBADMSG};
  }
  return Status::Ok();
}

// ForEachAttr over the attributes directly inside `nest`.
template <typename Fn>
[[nodiscard]] Status ForEachNested(AttrView nest, Fn&& fn) {
  return ForEachAttr(nest.data, nest.len, std::forward<Fn>(fn));
}

}  // namespace rnic::nl
