// Encodes netlink attributes into a byte buffer (Request::attrs): the
// requests of generic netlink and rtnetlink families carry nests (ethtool's
// *_A_*_HEADER), strings (dcbnl's DCB_ATTR_IFNAME) and u8s that
// Request::u32_attrs cannot express.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace rnic::nl {

class AttrWriter {
 public:
  AttrWriter() = default;
  // Appends to `out` instead of a buffer of its own (the transport encodes
  // a whole request into one kept buffer).
  explicit AttrWriter(std::vector<std::uint8_t>& out) : buf_(&out) {}
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
  // Opens a nest (NLA_F_NESTED set); EndNest(token) fixes its length.
  [[nodiscard]] std::size_t BeginNest(std::uint16_t type);
  void EndNest(std::size_t token);

  [[nodiscard]] std::vector<std::uint8_t> Take() && { return std::move(*buf_); }
  [[nodiscard]] const std::vector<std::uint8_t>& bytes() const { return *buf_; }

 private:
  void Put(std::uint16_t type, const void* data, std::size_t len);
  std::vector<std::uint8_t> own_;
  std::vector<std::uint8_t>* buf_ = &own_;
};

}  // namespace rnic::nl
