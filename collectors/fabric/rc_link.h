// The initiator's side of one fabric connection: an rdma_cm RC connection
// from a local address to a peer's responder, and the timed ping-pongs on
// it. A link that timed out or saw a completion error is dead (its QP is in
// an unknown or error state): the owner drops it and reconnects.
#pragma once

#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/fabric/fabric_config.h"
#include "collectors/fabric/private_data.h"
#include "collectors/fabric/rc_resources.h"
#include "collectors/probing/operation.h"

namespace rnic::fabric {

struct ConnectSpec {
  std::string local_ip;
  std::string remote_ip;
  int port = 0;
  int tos = -1;          // -1: the default traffic class
  int ack_timeout = -1;  // -1: rdma_cm's default
  std::uint32_t ops = kOpSend | kOpWrite;
  std::uint32_t max_size = 64;
  std::chrono::milliseconds timeout{2000};
  // Test tool only: sent instead of the encoded hello (a responder must
  // refuse what does not parse).
  std::optional<std::vector<std::uint8_t>> private_data;
};

// Why a connect failed: the rdma_cm event that ended it ("rejected",
// "unreachable", "addr_error", ...), "timeout", or the local step.
struct ConnectFailure {
  std::string event;
  std::string detail;
};

struct PingResult {
  enum class Kind { kOk, kTimeout, kError } kind = Kind::kOk;
  double seconds = 0;
  std::string status;  // kError: ibv_wc_status in snake_case
};

class RcLink {
 public:
  // Blocking, up to spec.timeout for each rdma_cm step.
  static std::unique_ptr<RcLink> Connect(const ConnectSpec& spec,
                                         ConnectFailure& failure);
  ~RcLink();
  RcLink(const RcLink&) = delete;
  RcLink& operator=(const RcLink&) = delete;

  // One timed operation of `size` bytes (<= max_size).
  [[nodiscard]] PingResult Ping(probe::Operation op, std::uint32_t size,
                                std::chrono::milliseconds timeout);
  // A ping whose time is left out, before a burst of timed ones (perftest
  // warms up alike): the peer's responder thread and the idle CPUs of both
  // hosts wake for it. Timed, their wake-up is the burst's first sample
  // (in the VMs the first operation of a round had 1.3-2x the others'
  // median).
  [[nodiscard]] PingResult WarmUp(probe::Operation op, std::uint32_t size,
                                  std::chrono::milliseconds timeout) {
    return Ping(op, size, timeout);
  }
  // False once the peer disconnected (a DISCONNECTED event is pending).
  [[nodiscard]] bool Alive();

 private:
  RcLink() = default;
  // Waits for completions until `want` (bits of wr kinds) are all seen.
  PingResult Wait(unsigned want, std::chrono::steady_clock::time_point start,
                  std::chrono::steady_clock::time_point deadline);

  rdma_event_channel* channel_ = nullptr;
  rdma_cm_id* id_ = nullptr;
  std::unique_ptr<RcResources> res_;
  Hello peer_;
  bool connected_ = false;
  bool dead_ = false;
};

// Sets the TOS and ACK timeout options of `id` (-1: leave the default).
// Returns the option that failed, or nullptr.
[[nodiscard]] const char* SetIdOptions(rdma_cm_id* id, int tos,
                                       int ack_timeout);

// Waits for the next rdma_cm event on `ch` (non-blocking fd) up to
// `timeout`; copies what callers need and acks it. nullopt: timeout.
struct CmEvent {
  rdma_cm_event_type type{};
  rdma_cm_id* id = nullptr;
  rdma_cm_id* listen_id = nullptr;
  int status = 0;
  std::vector<std::uint8_t> private_data;
};
[[nodiscard]] std::optional<CmEvent> NextCmEvent(
    rdma_event_channel* ch, std::chrono::milliseconds timeout);

}  // namespace rnic::fabric
