#include "collectors/fabric/private_data.h"

namespace rnic::fabric {
namespace {

template <typename T>
void Put(std::vector<std::uint8_t>& out, std::size_t at, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out[at + i] =
        static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i));
  }
}

template <typename T>
T Get(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  }
  return static_cast<T>(v);
}

HelloResult Fail(HelloError e) { return HelloResult{{}, false, e}; }

}  // namespace

std::vector<std::uint8_t> EncodeHello(const Hello& h) {
  std::vector<std::uint8_t> out(kPrivateDataSize, 0);
  Put(out, 0, kMagic);
  Put(out, 2, kVersion);
  Put(out, 3,
      static_cast<std::uint8_t>(static_cast<std::uint8_t>(h.kind) |
                                (h.ops & kOpAll)));
  Put(out, 4, h.max_size);
  Put(out, 8, h.addr);
  Put(out, 16, h.rkey);
  return out;
}

std::string_view HelloErrorName(HelloError e) {
  switch (e) {
    case HelloError::kShort:
      return "short";
    case HelloError::kBadMagic:
      return "bad_magic";
    case HelloError::kBadVersion:
      return "bad_version";
    case HelloError::kBadKind:
      return "bad_kind";
    case HelloError::kBadOps:
      return "bad_operations";
    case HelloError::kBadSize:
      return "bad_size";
    case HelloError::kBadReserved:
      return "bad_reserved";
  }
  return "unknown";
}

HelloResult ParseHello(std::span<const std::uint8_t> data, HelloKind want,
                       std::uint32_t max_size) {
  if (data.size() < kPrivateDataSize) return Fail(HelloError::kShort);
  if (Get<std::uint16_t>(data, 0) != kMagic) return Fail(HelloError::kBadMagic);
  if (data[2] != kVersion) return Fail(HelloError::kBadVersion);
  const std::uint8_t flags = data[3];
  if ((flags & 0x80) != static_cast<std::uint8_t>(want))
    return Fail(HelloError::kBadKind);
  Hello h;
  h.kind = want;
  h.ops = flags & 0x7f;
  if (h.ops == 0 || (h.ops & ~kOpAll) != 0) return Fail(HelloError::kBadOps);
  h.max_size = Get<std::uint32_t>(data, 4);
  if (h.max_size == 0 || h.max_size > max_size)
    return Fail(HelloError::kBadSize);
  h.addr = Get<std::uint64_t>(data, 8);
  h.rkey = Get<std::uint32_t>(data, 16);
  for (std::size_t i = kPrivateDataSize; i < data.size(); ++i) {
    if (data[i] != 0) return Fail(HelloError::kBadReserved);
  }
  return HelloResult{h, true, HelloError::kShort};
}

}  // namespace rnic::fabric
