#include "collectors/nl/attr_writer.h"

#include <linux/netlink.h>

#include <cstring>

namespace rnic::nl {

void AttrWriter::Put(std::uint16_t type, const void* data, std::size_t len) {
  std::vector<std::uint8_t>& buf = *buf_;
  const std::size_t off = buf.size();
  const nlattr hdr{static_cast<std::uint16_t>(NLA_HDRLEN + len), type};
  buf.resize(off + NLA_ALIGN(NLA_HDRLEN + len), 0);
  std::memcpy(buf.data() + off, &hdr, sizeof(hdr));
  if (len > 0) std::memcpy(buf.data() + off + NLA_HDRLEN, data, len);
}

void AttrWriter::PutString(std::uint16_t type, std::string_view s) {
  std::vector<char> z(s.begin(), s.end());
  z.push_back('\0');
  Put(type, z.data(), z.size());
}

std::size_t AttrWriter::BeginNest(std::uint16_t type) {
  const std::size_t off = buf_->size();
  Put(static_cast<std::uint16_t>(type | NLA_F_NESTED), nullptr, 0);
  return off;
}

void AttrWriter::EndNest(std::size_t token) {
  const auto len = static_cast<std::uint16_t>(buf_->size() - token);
  std::memcpy(buf_->data() + token, &len, sizeof(len));
}

}  // namespace rnic::nl
