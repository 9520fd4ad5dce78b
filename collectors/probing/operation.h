// The RDMA operations a probe times, shared by the probe (loopback QPs,
// collectors/probe) and the fabric probe (across hosts, collectors/fabric):
// one enum, its configuration spelling and its label value.
#pragma once

#include <string>

#include "collectors/common/result.h"

namespace rnic::probe {

enum class Operation {
  kSend,            // SEND/RECV ping-pong
  kWrite,           // RDMA WRITE ping-pong, receiver polls memory
  kRead,            // RDMA READ, one request/response
  kAtomicCmpSwap,   // ATOMIC CMP_AND_SWP, 8 bytes
  kAtomicFetchAdd,  // ATOMIC FETCH_AND_ADD, 8 bytes
};

// Label value ("send", "write", "read", "atomic_cmp_swap", "atomic_fetch_add").
[[nodiscard]] const char* OperationName(Operation op);
// "send", "write", "read", "atomic_cmp_swap" (or "cmp_swap"),
// "atomic_fetch_add" (or "fetch_add"); the error lists them.
[[nodiscard]] Result<Operation> ParseOperation(const std::string& s);
[[nodiscard]] bool IsAtomic(Operation op);
// READ and atomics are one request and its response: their latency is the
// whole operation. SEND and WRITE are timed as a ping-pong and halved, as
// perftest's ib_send_lat / ib_write_lat report them.
[[nodiscard]] bool IsHalfRoundTrip(Operation op);

}  // namespace rnic::probe
