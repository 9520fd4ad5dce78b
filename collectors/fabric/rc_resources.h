// The verbs objects behind one fabric connection, initiator or responder
// side: its own PD, a CQ with a completion channel, the RC QP of the
// rdma_cm id, and one buffer in the smallest MR the operations need (a send
// half and a receive half of max_size bytes each), with only the access
// rights they need. Destruction releases all of it, in order.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "collectors/common/result.h"

namespace rnic::fabric {

inline constexpr int kQueueDepth = 16;  // WRs per queue; a probe has 2 out

class RcResources {
 public:
  // `id` must have a verbs context (address resolved, or a connect
  // request's id). The QP is created on `id` (rdma_create_qp).
  [[nodiscard]] static Result<std::unique_ptr<RcResources>> Create(
      rdma_cm_id* id, std::uint32_t max_size, int access);
  ~RcResources();
  RcResources(const RcResources&) = delete;
  RcResources& operator=(const RcResources&) = delete;

  [[nodiscard]] std::uint8_t* send_buf() const { return buf_; }
  [[nodiscard]] std::uint8_t* recv_buf() const { return buf_ + max_size_; }
  [[nodiscard]] std::uint32_t lkey() const { return mr_->lkey; }
  [[nodiscard]] std::uint32_t rkey() const { return mr_->rkey; }
  [[nodiscard]] std::uint64_t recv_addr() const {
    return reinterpret_cast<std::uintptr_t>(recv_buf());
  }
  [[nodiscard]] ibv_cq* cq() const { return cq_; }
  [[nodiscard]] ibv_comp_channel* channel() const { return comp_; }
  [[nodiscard]] ibv_qp* qp() const { return id_->qp; }
  [[nodiscard]] std::uint32_t max_size() const { return max_size_; }

  // One receive of up to max_size into the receive half.
  [[nodiscard]] int PostRecv();
  // Arms the CQ and drains its channel's events (after a wakeup).
  void AckChannel();

 private:
  RcResources() = default;
  rdma_cm_id* id_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_comp_channel* comp_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_mr* mr_ = nullptr;
  std::uint8_t* buf_ = nullptr;
  std::uint32_t max_size_ = 0;
  bool qp_ = false;
};

// Fills a sockaddr for `ip` (IPv4 or IPv6) and `port`; false if no address.
[[nodiscard]] bool ToSockaddr(const std::string& ip, int port,
                              sockaddr_storage& out);
[[nodiscard]] std::string IpOf(const sockaddr* sa);

// "addr_error", "rejected", ... from rdma_event_str().
[[nodiscard]] std::string CmEventName(rdma_cm_event_type type);

}  // namespace rnic::fabric
