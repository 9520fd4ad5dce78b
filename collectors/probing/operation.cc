#include "collectors/probing/operation.h"

namespace rnic::probe {

Result<Operation> ParseOperation(const std::string& s) {
  if (s == "send") return Operation::kSend;
  if (s == "write") return Operation::kWrite;
  if (s == "read") return Operation::kRead;
  if (s == "atomic_cmp_swap" || s == "cmp_swap")
    return Operation::kAtomicCmpSwap;
  if (s == "atomic_fetch_add" || s == "fetch_add")
    return Operation::kAtomicFetchAdd;
  return Error{"unknown operation '" + s +
               "' (send, write, read, atomic_cmp_swap, atomic_fetch_add)"};
}

const char* OperationName(Operation op) {
  switch (op) {
    case Operation::kSend:
      return "send";
    case Operation::kWrite:
      return "write";
    case Operation::kRead:
      return "read";
    case Operation::kAtomicCmpSwap:
      return "atomic_cmp_swap";
    case Operation::kAtomicFetchAdd:
      return "atomic_fetch_add";
  }
  return "unknown";
}

bool IsAtomic(Operation op) {
  return op == Operation::kAtomicCmpSwap || op == Operation::kAtomicFetchAdd;
}

bool IsHalfRoundTrip(Operation op) {
  return op == Operation::kSend || op == Operation::kWrite;
}

}  // namespace rnic::probe
