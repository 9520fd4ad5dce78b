// Request attributes written with libnl-3 (nla_put_*, nla_nest_start /
// nla_nest_end_keep_empty) into an nl_msg used as a buffer: the requests of
// generic netlink and rtnetlink families carry nests (ethtool's
// *_A_*_HEADER), strings and u8s that Request::u32_attrs cannot express.
// Take() hands the attribute bytes to Request::attrs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

struct nl_msg;

namespace rnic::nl {

class AttrWriter {
 public:
  AttrWriter();
  ~AttrWriter();
  AttrWriter(const AttrWriter&) = delete;
  AttrWriter& operator=(const AttrWriter&) = delete;

  void PutU8(std::uint16_t type, std::uint8_t v) { Put(type, &v, sizeof(v)); }
  void PutU16(std::uint16_t type, std::uint16_t v) { Put(type, &v, sizeof(v)); }
  void PutU32(std::uint16_t type, std::uint32_t v) { Put(type, &v, sizeof(v)); }
  // With its terminating NUL, as the kernel's NLA_NUL_STRING wants.
  void PutString(std::uint16_t type, std::string_view s);
  void PutFlag(std::uint16_t type) { Put(type, nullptr, 0); }
  void PutBinary(std::uint16_t type, std::span<const std::uint8_t> data) {
    Put(type, data.data(), data.size());
  }
  // Opens a nest (nla_nest_start sets NLA_F_NESTED); EndNest(token) closes
  // it, an empty one included.
  [[nodiscard]] std::size_t BeginNest(std::uint16_t type);
  void EndNest(std::size_t token);

  // The attributes written so far: a copy, or a view valid until the next
  // Put/BeginNest/EndNest.
  [[nodiscard]] std::vector<std::uint8_t> Take() &&;
  [[nodiscard]] std::span<const std::uint8_t> bytes() const;

 private:
  // nla_put, growing the message (nlmsg_expand) when it is full.
  void Put(std::uint16_t type, const void* data, std::size_t len);
  void Grow(std::size_t need);
  nl_msg* msg_;
};

}  // namespace rnic::nl
