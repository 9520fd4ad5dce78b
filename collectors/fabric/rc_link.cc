#include "collectors/fabric/rc_link.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>

#include "collectors/probing/verbs_names.h"

namespace rnic::fabric {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kWrSend = 1;
constexpr std::uint64_t kWrRecv = 2;
constexpr std::uint64_t kWrWrite = 4;
constexpr std::uint64_t kWrRead = 8;
// Completions are polled busily this long before sleeping on the channel:
// RTTs on a fabric are microseconds, and a wakeup costs more than that.
constexpr auto kSpin = std::chrono::microseconds(200);

int Ms(std::chrono::nanoseconds d) {
  return static_cast<int>(std::max<std::int64_t>(
      0, std::chrono::ceil<std::chrono::milliseconds>(d).count()));
}

bool Expect(rdma_event_channel* ch, rdma_cm_event_type want,
            std::chrono::milliseconds timeout, ConnectFailure& failure,
            std::vector<std::uint8_t>* private_data = nullptr) {
  auto ev = NextCmEvent(ch, timeout);
  if (!ev) {
    failure = {"timeout", "no " + CmEventName(want) + " event"};
    return false;
  }
  if (ev->type != want) {
    failure = {CmEventName(ev->type), "status " + std::to_string(ev->status)};
    return false;
  }
  if (private_data) *private_data = std::move(ev->private_data);
  return true;
}

}  // namespace

const char* SetIdOptions(rdma_cm_id* id, int tos, int ack_timeout) {
  if (tos >= 0) {
    std::uint8_t v = static_cast<std::uint8_t>(tos);
    if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &v, sizeof v) !=
        0)
      return "rdma_set_option TOS";
  }
  if (ack_timeout >= 0) {
    std::uint8_t v = static_cast<std::uint8_t>(ack_timeout);
    if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v,
                        sizeof v) != 0)
      return "rdma_set_option ACK_TIMEOUT";
  }
  return nullptr;
}

std::optional<CmEvent> NextCmEvent(rdma_event_channel* ch,
                                   std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    rdma_cm_event* ev = nullptr;
    if (rdma_get_cm_event(ch, &ev) == 0) {
      CmEvent out;
      out.type = ev->event;
      out.id = ev->id;
      out.listen_id = ev->listen_id;
      out.status = ev->status;
      const auto& conn = ev->param.conn;
      if (conn.private_data != nullptr && conn.private_data_len > 0 &&
          (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
           ev->event == RDMA_CM_EVENT_ESTABLISHED ||
           ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE)) {
        const auto* p = static_cast<const std::uint8_t*>(conn.private_data);
        out.private_data.assign(p, p + conn.private_data_len);
      }
      rdma_ack_cm_event(ev);
      return out;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) return std::nullopt;
    const int left = Ms(deadline - Clock::now());
    if (left <= 0) return std::nullopt;
    pollfd p{ch->fd, POLLIN, 0};
    if (poll(&p, 1, left) < 0 && errno != EINTR) return std::nullopt;
  }
}

std::unique_ptr<RcLink> RcLink::Connect(const ConnectSpec& spec,
                                        ConnectFailure& failure) {
  std::unique_ptr<RcLink> l(new RcLink());
  l->channel_ = rdma_create_event_channel();
  if (l->channel_ == nullptr) {
    failure = {"setup_error", "rdma_create_event_channel"};
    return nullptr;
  }
  const int fl = fcntl(l->channel_->fd, F_GETFL);
  (void)fcntl(l->channel_->fd, F_SETFL, fl | O_NONBLOCK);
  if (rdma_create_id(l->channel_, &l->id_, nullptr, RDMA_PS_TCP) != 0) {
    failure = {"setup_error", "rdma_create_id"};
    return nullptr;
  }
  // Before address resolution: the traffic class picks the path (and, on
  // RoCE, the priority and DSCP the probes ride on).
  if (const char* bad = SetIdOptions(l->id_, spec.tos, spec.ack_timeout)) {
    failure = {"setup_error", bad};
    return nullptr;
  }
  sockaddr_storage src{}, dst{};
  if (!ToSockaddr(spec.local_ip, 0, src) ||
      !ToSockaddr(spec.remote_ip, spec.port, dst)) {
    failure = {"setup_error", "bad address"};
    return nullptr;
  }
  const int ms = static_cast<int>(spec.timeout.count());
  if (rdma_resolve_addr(l->id_, reinterpret_cast<sockaddr*>(&src),
                        reinterpret_cast<sockaddr*>(&dst), ms) != 0) {
    failure = {"addr_error", "rdma_resolve_addr"};
    return nullptr;
  }
  if (!Expect(l->channel_, RDMA_CM_EVENT_ADDR_RESOLVED, spec.timeout, failure))
    return nullptr;
  if (rdma_resolve_route(l->id_, ms) != 0) {
    failure = {"route_error", "rdma_resolve_route"};
    return nullptr;
  }
  if (!Expect(l->channel_, RDMA_CM_EVENT_ROUTE_RESOLVED, spec.timeout, failure))
    return nullptr;
  // The responder WRITEs its answer here; a READ needs local write only.
  int access = IBV_ACCESS_LOCAL_WRITE;
  if (spec.ops & kOpWrite) access |= IBV_ACCESS_REMOTE_WRITE;
  auto res = RcResources::Create(l->id_, spec.max_size, access);
  if (!res) {
    failure = {"setup_error", res.error().ToString()};
    return nullptr;
  }
  l->res_ = std::move(*res);
  for (int i = 0; i < kQueueDepth / 2; ++i) {
    if (l->res_->PostRecv() != 0) {
      failure = {"setup_error", "ibv_post_recv"};
      return nullptr;
    }
  }
  const auto hello =
      spec.private_data
          ? *spec.private_data
          : EncodeHello(Hello{HelloKind::kRequest, spec.ops, spec.max_size,
                              l->res_->recv_addr(), l->res_->rkey()});
  rdma_conn_param param{};
  param.private_data = hello.data();
  param.private_data_len = static_cast<std::uint8_t>(hello.size());
  param.responder_resources = 1;
  param.initiator_depth = 1;
  param.retry_count = 7;
  param.rnr_retry_count = 7;
  if (rdma_connect(l->id_, &param) != 0) {
    failure = {"connect_error", "rdma_connect"};
    return nullptr;
  }
  std::vector<std::uint8_t> reply;
  if (!Expect(l->channel_, RDMA_CM_EVENT_ESTABLISHED, spec.timeout, failure,
              &reply))
    return nullptr;
  l->connected_ = true;
  auto parsed = ParseHello(reply, HelloKind::kReply, kMaxMessage);
  if (!parsed.ok || parsed.hello.max_size < spec.max_size) {
    failure = {"bad_reply", std::string(HelloErrorName(parsed.error))};
    return nullptr;
  }
  l->peer_ = parsed.hello;
  return l;
}

RcLink::~RcLink() {
  if (connected_) (void)rdma_disconnect(id_);
  res_.reset();
  if (id_ != nullptr) rdma_destroy_id(id_);
  if (channel_ != nullptr) rdma_destroy_event_channel(channel_);
}

bool RcLink::Alive() {
  if (dead_) return false;
  for (;;) {
    auto ev = NextCmEvent(channel_, std::chrono::milliseconds(0));
    if (!ev) return true;
    if (ev->type == RDMA_CM_EVENT_DISCONNECTED ||
        ev->type == RDMA_CM_EVENT_DEVICE_REMOVAL ||
        ev->type == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
      dead_ = true;
      return false;
    }
  }
}

PingResult RcLink::Ping(probe::Operation op, std::uint32_t size,
                        std::chrono::milliseconds timeout) {
  ibv_sge sge{};
  sge.length = size;
  sge.lkey = res_->lkey();
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  unsigned want = 0;
  switch (op) {
    case probe::Operation::kSend:
      sge.addr = reinterpret_cast<std::uintptr_t>(res_->send_buf());
      wr.opcode = IBV_WR_SEND;
      wr.wr_id = kWrSend;
      want = kWrSend | kWrRecv;
      break;
    case probe::Operation::kWrite:
      sge.addr = reinterpret_cast<std::uintptr_t>(res_->send_buf());
      wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
      wr.imm_data = htonl(size);  // the responder answers with as many bytes
      wr.wr.rdma.remote_addr = peer_.addr;
      wr.wr.rdma.rkey = peer_.rkey;
      wr.wr_id = kWrWrite;
      want = kWrWrite | kWrRecv;
      break;
    case probe::Operation::kRead:
      sge.addr = res_->recv_addr();
      wr.opcode = IBV_WR_RDMA_READ;
      wr.wr.rdma.remote_addr = peer_.addr;
      wr.wr.rdma.rkey = peer_.rkey;
      wr.wr_id = kWrRead;
      want = kWrRead;
      break;
    default:
      return {PingResult::Kind::kError, 0, "unsupported_operation"};
  }
  ibv_send_wr* bad = nullptr;
  const auto start = Clock::now();
  if (ibv_post_send(res_->qp(), &wr, &bad) != 0) {
    dead_ = true;
    return {PingResult::Kind::kError, 0, "post_send_failed"};
  }
  auto r = Wait(want, start, start + timeout);
  if (r.kind != PingResult::Kind::kOk) dead_ = true;
  return r;
}

PingResult RcLink::Wait(unsigned want, Clock::time_point start,
                        Clock::time_point deadline) {
  unsigned seen = 0;
  ibv_wc wc[4];
  for (;;) {
    const int n = ibv_poll_cq(res_->cq(), 4, wc);
    if (n < 0) return {PingResult::Kind::kError, 0, "poll_cq_failed"};
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS)
        return {PingResult::Kind::kError, 0, probe::WcStatusName(wc[i].status)};
      seen |= static_cast<unsigned>(wc[i].wr_id);
      if (wc[i].wr_id == kWrRecv && res_->PostRecv() != 0)
        return {PingResult::Kind::kError, 0, "post_recv_failed"};
    }
    const auto now = Clock::now();
    if ((seen & want) == want) {
      return {PingResult::Kind::kOk,
              std::chrono::duration<double>(now - start).count(), ""};
    }
    if (n > 0) continue;
    if (now >= deadline) return {PingResult::Kind::kTimeout, 0, ""};
    if (now - start < kSpin) continue;
    // Sleep on the channel: arm, re-check (a completion may have come in
    // between), then wait.
    if (ibv_req_notify_cq(res_->cq(), 0) != 0)
      return {PingResult::Kind::kError, 0, "req_notify_failed"};
    const int m = ibv_poll_cq(res_->cq(), 4, wc);
    if (m < 0) return {PingResult::Kind::kError, 0, "poll_cq_failed"};
    if (m > 0) {
      for (int i = 0; i < m; ++i) {
        if (wc[i].status != IBV_WC_SUCCESS)
          return {PingResult::Kind::kError, 0,
                  probe::WcStatusName(wc[i].status)};
        seen |= static_cast<unsigned>(wc[i].wr_id);
        if (wc[i].wr_id == kWrRecv && res_->PostRecv() != 0)
          return {PingResult::Kind::kError, 0, "post_recv_failed"};
      }
      if ((seen & want) == want) {
        return {PingResult::Kind::kOk,
                std::chrono::duration<double>(Clock::now() - start).count(),
                ""};
      }
    }
    pollfd p{res_->channel()->fd, POLLIN, 0};
    (void)poll(&p, 1, Ms(deadline - Clock::now()));
    res_->AckChannel();
  }
}

}  // namespace rnic::fabric
