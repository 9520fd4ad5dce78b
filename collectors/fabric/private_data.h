// The private data of the fabric probe's rdma_cm CONNECT_REQUEST and its
// ESTABLISHED reply: what the responder needs to size its memory region and
// grant only the rights the initiator's operations need, and where each side
// may RDMA WRITE/READ. Fixed layout, little endian, 20 bytes: well inside
// the 56 bytes rdma_cm leaves of an IB CM REQ's 92 (its own header takes
// 36 with RDMA_PS_TCP). The CM pads with zeros, so longer input is
// accepted when the padding is zero.
//   0 u16 magic "RF"   2 u8 version   3 u8 flags (bits 0-2 operations,
//   bit 7 reply, others zero)   4 u32 max_size   8 u64 addr   16 u32 rkey
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"

namespace rnic::fabric {

inline constexpr std::uint16_t kMagic = 0x4652;  // "RF" in memory
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kPrivateDataSize = 20;

enum class HelloKind : std::uint8_t { kRequest = 0, kReply = 0x80 };

// Operation bits of Hello::ops.
inline constexpr std::uint32_t kOpSend = 1;
inline constexpr std::uint32_t kOpWrite = 2;
inline constexpr std::uint32_t kOpRead = 4;
inline constexpr std::uint32_t kOpAll = kOpSend | kOpWrite | kOpRead;

struct Hello {
  HelloKind kind = HelloKind::kRequest;
  std::uint32_t ops = 0;       // kOp* bits the sender will run
  std::uint32_t max_size = 0;  // largest message, bytes
  std::uint64_t addr = 0;      // sender's buffer for the peer's WRITE/READ
  std::uint32_t rkey = 0;
  bool operator==(const Hello&) const = default;
};

[[nodiscard]] std::vector<std::uint8_t> EncodeHello(const Hello& h);

// Why a hello was refused; the label value of the refusal counter.
enum class HelloError {
  kShort,
  kBadMagic,
  kBadVersion,
  kBadKind,
  kBadOps,
  kBadSize,
  kBadReserved,
};
[[nodiscard]] std::string_view HelloErrorName(HelloError e);

struct HelloResult {
  Hello hello;
  bool ok = false;
  HelloError error = HelloError::kShort;
};

// Checks magic, version, kind (`want`), operation bits, size (1..max_size)
// and that reserved bits and padding are zero. Never reads past `data`.
[[nodiscard]] HelloResult ParseHello(std::span<const std::uint8_t> data,
                                     HelloKind want, std::uint32_t max_size);

}  // namespace rnic::fabric
