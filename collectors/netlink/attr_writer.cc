#include "collectors/netlink/attr_writer.h"

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <cstdlib>
#include <new>
#include <string>

namespace rnic::nl {
namespace {

// Room for any request this exporter sends (the largest, an ethtool
// header nest with a netdev name, is under 64 bytes); Grow() doubles it.
constexpr std::size_t kInitialSize = 256;

}  // namespace

AttrWriter::AttrWriter() : msg_(nlmsg_alloc_size(kInitialSize)) {
  if (msg_ == nullptr) throw std::bad_alloc();
}

AttrWriter::~AttrWriter() { nlmsg_free(msg_); }

void AttrWriter::Grow(std::size_t need) {
  std::size_t size = nlmsg_get_max_size(msg_);
  const std::size_t want = nlmsg_hdr(msg_)->nlmsg_len + need;
  while (size < want) size *= 2;
  if (nlmsg_expand(msg_, size) < 0) throw std::bad_alloc();
}

void AttrWriter::Put(std::uint16_t type, const void* data, std::size_t len) {
  if (nla_put(msg_, type, static_cast<int>(len), data) == 0) return;
  Grow(static_cast<std::size_t>(nla_total_size(static_cast<int>(len))));
  if (nla_put(msg_, type, static_cast<int>(len), data) < 0) {
    throw std::bad_alloc();
  }
}

void AttrWriter::PutString(std::uint16_t type, std::string_view s) {
  std::string z(s);  // nla_put_string's copy includes the NUL
  Put(type, z.c_str(), z.size() + 1);
}

std::size_t AttrWriter::BeginNest(std::uint16_t type) {
  nlattr* start = nla_nest_start(msg_, type);
  if (start == nullptr) {
    Grow(NLA_HDRLEN);
    start = nla_nest_start(msg_, type);
    if (start == nullptr) throw std::bad_alloc();
  }
  // An offset, not the pointer: growing the message moves it.
  return static_cast<std::size_t>(
      reinterpret_cast<std::uint8_t*>(start) -
      reinterpret_cast<std::uint8_t*>(nlmsg_hdr(msg_)));
}

void AttrWriter::EndNest(std::size_t token) {
  auto* base = reinterpret_cast<std::uint8_t*>(nlmsg_hdr(msg_));
  (void)nla_nest_end_keep_empty(msg_, reinterpret_cast<nlattr*>(base + token));
}

std::span<const std::uint8_t> AttrWriter::bytes() const {
  const nlmsghdr* h = nlmsg_hdr(msg_);
  return {static_cast<const std::uint8_t*>(nlmsg_data(h)),
          static_cast<std::size_t>(nlmsg_datalen(h))};
}

std::vector<std::uint8_t> AttrWriter::Take() && {
  const auto b = bytes();
  return {b.begin(), b.end()};
}

}  // namespace rnic::nl
