#include "collectors/fabric/rc_resources.h"

#include <arpa/inet.h>
#include <fcntl.h>

#include <cstdlib>
#include <cstring>

#include "collectors/probing/verbs_names.h"

namespace rnic::fabric {

Result<std::unique_ptr<RcResources>> RcResources::Create(rdma_cm_id* id,
                                                         std::uint32_t max_size,
                                                         int access) {
  std::unique_ptr<RcResources> r(new RcResources());
  r->id_ = id;
  r->max_size_ = max_size;
  r->pd_ = ibv_alloc_pd(id->verbs);
  if (r->pd_ == nullptr) return Error::FromErrno("ibv_alloc_pd", errno);
  r->comp_ = ibv_create_comp_channel(id->verbs);
  if (r->comp_ == nullptr)
    return Error::FromErrno("ibv_create_comp_channel", errno);
  const int flags = fcntl(r->comp_->fd, F_GETFL);
  if (flags < 0 || fcntl(r->comp_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return Error::FromErrno("fcntl O_NONBLOCK", errno);
  r->cq_ = ibv_create_cq(id->verbs, 2 * kQueueDepth, nullptr, r->comp_, 0);
  if (r->cq_ == nullptr) return Error::FromErrno("ibv_create_cq", errno);
  ibv_qp_init_attr attr{};
  attr.send_cq = r->cq_;
  attr.recv_cq = r->cq_;
  attr.qp_type = IBV_QPT_RC;
  attr.cap.max_send_wr = kQueueDepth;
  attr.cap.max_recv_wr = kQueueDepth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  attr.sq_sig_all = 1;
  if (rdma_create_qp(id, r->pd_, &attr) != 0)
    return Error::FromErrno("rdma_create_qp", errno);
  r->qp_ = true;
  const std::size_t bytes = 2 * static_cast<std::size_t>(max_size);
  const std::size_t page = 4096;
  r->buf_ = static_cast<std::uint8_t*>(
      std::aligned_alloc(page, (bytes + page - 1) / page * page));
  if (r->buf_ == nullptr) return Error{"out of memory"};
  std::memset(r->buf_, 0, bytes);
  r->mr_ = ibv_reg_mr(r->pd_, r->buf_, bytes, access);
  if (r->mr_ == nullptr) return Error::FromErrno("ibv_reg_mr", errno);
  if (ibv_req_notify_cq(r->cq_, 0) != 0)
    return Error::FromErrno("ibv_req_notify_cq", errno);
  return r;
}

RcResources::~RcResources() {
  if (qp_) rdma_destroy_qp(id_);
  if (mr_ != nullptr) ibv_dereg_mr(mr_);
  std::free(buf_);
  if (cq_ != nullptr) ibv_destroy_cq(cq_);
  if (comp_ != nullptr) ibv_destroy_comp_channel(comp_);
  if (pd_ != nullptr) ibv_dealloc_pd(pd_);
}

int RcResources::PostRecv() {
  ibv_sge sge{};
  sge.addr = recv_addr();
  sge.length = max_size_;
  sge.lkey = lkey();
  ibv_recv_wr wr{};
  wr.wr_id = 2;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return ibv_post_recv(qp(), &wr, &bad);
}

void RcResources::AckChannel() {
  ibv_cq* cq = nullptr;
  void* ctx = nullptr;
  while (ibv_get_cq_event(comp_, &cq, &ctx) == 0) ibv_ack_cq_events(cq, 1);
  (void)ibv_req_notify_cq(cq_, 0);
}

bool ToSockaddr(const std::string& ip, int port, sockaddr_storage& out) {
  std::memset(&out, 0, sizeof out);
  auto* in4 = reinterpret_cast<sockaddr_in*>(&out);
  if (inet_pton(AF_INET, ip.c_str(), &in4->sin_addr) == 1) {
    in4->sin_family = AF_INET;
    in4->sin_port = htons(static_cast<std::uint16_t>(port));
    return true;
  }
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&out);
  if (inet_pton(AF_INET6, ip.c_str(), &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<std::uint16_t>(port));
    return true;
  }
  return false;
}

std::string IpOf(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (sa == nullptr) return "";
  if (sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf,
              sizeof buf);
  } else if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], buf, sizeof buf);
    } else {
      inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    }
  }
  return buf;
}

std::string CmEventName(rdma_cm_event_type type) {
  std::string s = probe::SnakeCase(rdma_event_str(type));
  // "RDMA_CM_EVENT_ADDR_ERROR" -> "addr_error"
  constexpr std::string_view kPrefix = "rdma_cm_event_";
  if (s.rfind(kPrefix, 0) == 0) s.erase(0, kPrefix.size());
  return s;
}

}  // namespace rnic::fabric
