#include "collectors/fabric/responder.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "collectors/fabric/fabric_config.h"
#include "collectors/fabric/private_data.h"
#include "collectors/fabric/rc_link.h"
#include "collectors/fabric/rc_resources.h"
#include "collectors/probing/cpu_pacer.h"

namespace rnic::fabric {

struct Responder::Conn {
  rdma_cm_id* id = nullptr;
  std::string device;
  Hello peer;
  std::unique_ptr<RcResources> res;
  bool established = false;
  // Gap from an answer to the next ping of the same burst (smoothed): how
  // long Serve() keeps polling for that ping before sleeping again.
  std::chrono::nanoseconds gap{0};
  std::chrono::steady_clock::time_point last_answer{};
};

namespace {

// A ping that comes this long after the previous answer starts a new burst.
constexpr auto kBurstGap = std::chrono::milliseconds(20);

// Polling for the next ping of a burst instead of sleeping: a wakeup
// through the completion channel costs more than the round trip on real
// NICs, so the probe would measure the responder's scheduler. Bounded like
// the initiator's spin (rc_link.cc): a longer spin would, on a host with
// few CPUs, hold off the softirq work that carries the very packets it
// waits for.
std::chrono::nanoseconds SpinFor(std::chrono::nanoseconds gap) {
  return std::clamp<std::chrono::nanoseconds>(
      4 * gap, std::chrono::microseconds(20), std::chrono::microseconds(200));
}

}  // namespace

Admission Admit(bool source_allowed, int open_connections, int max_connections,
                std::span<const std::uint8_t> private_data) {
  // The source first: nothing an unknown host sends is parsed.
  if (!source_allowed) return {false, "not_in_peer_set", {}};
  if (open_connections >= max_connections)
    return {false, "too_many_connections", {}};
  const auto hello = ParseHello(private_data, HelloKind::kRequest, kMaxMessage);
  if (!hello.ok) return {false, std::string(HelloErrorName(hello.error)), {}};
  return {true, "", hello.hello};
}

Responder::Responder(int port, int max_connections, int tos, int ack_timeout,
                     std::shared_ptr<FabricStats> stats)
    : port_(port),
      max_connections_(max_connections),
      tos_(tos),
      ack_timeout_(ack_timeout),
      stats_(std::move(stats)) {}

Responder::~Responder() { Stop(); }

void Responder::Start() {
  channel_ = rdma_create_event_channel();
  if (channel_ == nullptr) {
    log_.Log(spdlog::level::warn, "responder", "responder not started",
             Error::FromErrno("rdma_create_event_channel", errno));
    return;
  }
  const int fl = fcntl(channel_->fd, F_GETFL);
  (void)fcntl(channel_->fd, F_SETFL, fl | O_NONBLOCK);
  thread_ = std::thread([this] { Loop(); });
}

void Responder::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  for (auto& [id, c] : conns_) {
    c->res.reset();
    rdma_destroy_id(id);
  }
  conns_.clear();
  for (auto& [key, l] : listeners_) rdma_destroy_id(l.second);
  listeners_.clear();
  if (channel_ != nullptr) rdma_destroy_event_channel(channel_);
  channel_ = nullptr;
}

void Responder::SetAddresses(const std::vector<DeviceAddress>& addresses) {
  std::lock_guard g(mu_);
  if (addresses == wanted_) return;
  wanted_ = addresses;
  rebind_ = true;
}

void Responder::SetAllowed(std::set<std::string> source_ips) {
  std::lock_guard g(mu_);
  allowed_ = std::move(source_ips);
}

void Responder::SetLimits(std::map<std::string, int> per_device) {
  std::lock_guard g(mu_);
  limits_ = std::move(per_device);
}

int Responder::Limit(const std::string& device) const {
  std::lock_guard g(mu_);
  auto it = limits_.find(device);
  return it == limits_.end() ? max_connections_
                             : std::min(max_connections_, it->second);
}

bool Responder::Allowed(const std::string& ip) const {
  std::lock_guard g(mu_);
  return allowed_.count(ip) > 0;
}

void Responder::Rebind() {
  std::vector<DeviceAddress> want;
  {
    std::lock_guard g(mu_);
    if (!rebind_) return;
    rebind_ = false;
    want = wanted_;
  }
  std::set<std::string> keep;
  for (const auto& a : want) keep.insert(a.device + "/" + a.ip);
  for (auto it = listeners_.begin(); it != listeners_.end();) {
    if (keep.count(it->first) == 0) {
      listener_device_.erase(it->second.second);
      rdma_destroy_id(it->second.second);
      it = listeners_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& a : want) {
    const std::string key = a.device + "/" + a.ip;
    if (listeners_.count(key)) continue;
    rdma_cm_id* id = nullptr;
    sockaddr_storage sa{};
    if (!ToSockaddr(a.ip, port_, sa) ||
        rdma_create_id(channel_, &id, nullptr, RDMA_PS_TCP) != 0) {
      continue;
    }
    if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&sa)) != 0 ||
        rdma_listen(id, 64) != 0) {
      log_.Log(spdlog::level::warn, "listen " + key, "responder cannot listen",
               Error::FromErrno(a.ip + ":" + std::to_string(port_), errno));
      rdma_destroy_id(id);
      continue;
    }
    log_.Clear("listen " + key);
    LogEvent(spdlog::level::info, "fabric", "responder listening",
             {{"device", a.device},
              {"address", a.ip + ":" + std::to_string(port_)}});
    listeners_[key] = {a.device, id};
    listener_device_[id] = a.device;
    int n = 0;
    for (const auto& [_, c] : conns_) n += c->device == a.device;
    stats_->SetResponderConnections(a.device, n);
  }
}

void Responder::Loop() {
  double cpu_before = probe::ThreadCpuSeconds();
  while (!stop_) {
    Rebind();
    std::vector<pollfd> fds;
    std::vector<Conn*> owners;
    fds.push_back({channel_->fd, POLLIN, 0});
    owners.push_back(nullptr);
    for (auto& [id, c] : conns_) {
      if (!c->res) continue;
      fds.push_back({c->res->channel()->fd, POLLIN, 0});
      owners.push_back(c.get());
    }
    // A short timeout: Stop() and re-binding need no wakeup of their own.
    (void)poll(fds.data(), fds.size(), 200);
    while (auto ev = NextCmEvent(channel_, std::chrono::milliseconds(0))) {
      switch (ev->type) {
        case RDMA_CM_EVENT_CONNECT_REQUEST:
          OnConnectRequest(ev->id, ev->listen_id, ev->private_data);
          break;
        case RDMA_CM_EVENT_ESTABLISHED:
          if (auto it = conns_.find(ev->id); it != conns_.end())
            it->second->established = true;
          break;
        case RDMA_CM_EVENT_DISCONNECTED:
        case RDMA_CM_EVENT_TIMEWAIT_EXIT:
        case RDMA_CM_EVENT_CONNECT_ERROR:
        case RDMA_CM_EVENT_UNREACHABLE:
        case RDMA_CM_EVENT_REJECTED:
          Close(ev->id);
          break;
        case RDMA_CM_EVENT_DEVICE_REMOVAL:
          if (listener_device_.count(ev->id)) {
            std::lock_guard g(mu_);
            rebind_ = true;  // listen again when the device is back
          } else {
            Close(ev->id);
          }
          break;
        default:
          break;
      }
    }
    // The events above may have closed connections polled for: serve only
    // the ones still open (owners[] may point at freed ones).
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const bool open = std::any_of(
          conns_.begin(), conns_.end(),
          [&](const auto& kv) { return kv.second.get() == owners[i]; });
      if (open && owners[i]->res) Serve(*owners[i]);
    }
    std::vector<rdma_cm_id*> dead;
    for (auto& [id, c] : conns_) {
      if (!c->res) dead.push_back(id);
    }
    for (auto* id : dead) Close(id);
    const double cpu = probe::ThreadCpuSeconds();
    stats_->AddCpuSeconds(cpu - cpu_before);
    cpu_before = cpu;
  }
}

void Responder::OnConnectRequest(rdma_cm_id* id, rdma_cm_id* listen_id,
                                 const std::vector<std::uint8_t>& data) {
  auto dev_it = listener_device_.find(listen_id);
  const std::string device =
      dev_it == listener_device_.end() ? "" : dev_it->second;
  auto refuse = [&](const std::string& reason) {
    stats_->RecordRefused(device, reason);
    log_.Log(spdlog::level::info, "refused " + reason,
             "responder refused a connection",
             {{"device", device},
              {"source", IpOf(rdma_get_peer_addr(id))},
              {"reason", reason}});
    (void)rdma_reject(id, nullptr, 0);
    rdma_destroy_id(id);
  };
  // The cap is per device: each device answers its own rail's peers.
  int open = 0;
  for (const auto& [_, c] : conns_) open += c->device == device;
  const auto decision =
      Admit(Allowed(IpOf(rdma_get_peer_addr(id))), open, Limit(device), data);
  if (!decision.accept) return refuse(decision.reason);
  const Hello& hello = decision.hello;
  if (const char* bad = SetIdOptions(id, tos_, ack_timeout_)) {
    log_.Log(spdlog::level::warn, "options " + device,
             "responder cannot set a connection option", {{"option", bad}});
  }
  int access = IBV_ACCESS_LOCAL_WRITE;
  if (hello.ops & kOpWrite) access |= IBV_ACCESS_REMOTE_WRITE;
  if (hello.ops & kOpRead) access |= IBV_ACCESS_REMOTE_READ;
  auto res = RcResources::Create(id, hello.max_size, access);
  if (!res) {
    log_.Log(spdlog::level::warn, "setup " + device, "responder setup failed",
             res.error());
    return refuse("setup_error");
  }
  auto c = std::make_unique<Conn>();
  c->id = id;
  c->device = device;
  c->peer = hello;
  c->res = std::move(*res);
  for (int i = 0; i < kQueueDepth / 2; ++i) {
    if (c->res->PostRecv() != 0) {
      c->res.reset();
      return refuse("setup_error");
    }
  }
  const auto reply =
      EncodeHello(Hello{HelloKind::kReply, hello.ops, hello.max_size,
                        c->res->recv_addr(), c->res->rkey()});
  rdma_conn_param param{};
  param.private_data = reply.data();
  param.private_data_len = static_cast<std::uint8_t>(reply.size());
  param.responder_resources = 1;
  param.initiator_depth = 1;
  param.rnr_retry_count = 7;
  if (rdma_accept(id, &param) != 0) {
    c->res.reset();
    return refuse("setup_error");
  }
  stats_->RecordAccepted(device);
  conns_[id] = std::move(c);
  int n = 0;
  for (const auto& [_, x] : conns_) n += x->device == device;
  stats_->SetResponderConnections(device, n);
}

void Responder::Close(rdma_cm_id* id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  const std::string device = it->second->device;
  (void)rdma_disconnect(id);
  it->second->res.reset();
  conns_.erase(it);
  rdma_destroy_id(id);
  int n = 0;
  for (const auto& [_, x] : conns_) n += x->device == device;
  stats_->SetResponderConnections(device, n);
}

void Responder::Serve(Conn& c) {
  using Clock = std::chrono::steady_clock;
  c.res->AckChannel();
  ibv_wc wc[8];
  bool answered = false;
  for (;;) {
    const int n = ibv_poll_cq(c.res->cq(), 8, wc);
    if (n < 0) {
      c.res.reset();
      return;
    }
    if (n == 0) {
      // The channel was re-armed before this poll, so returning never
      // misses a completion.
      if (!answered || Clock::now() - c.last_answer >= SpinFor(c.gap)) return;
      continue;
    }
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        // The initiator went away or the fabric failed: drop it, the
        // initiator reconnects.
        c.res.reset();
        return;
      }
      if (wc[i].opcode != IBV_WC_RECV &&
          wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM)
        continue;  // our own send's completion
      ibv_sge sge{};
      sge.addr = reinterpret_cast<std::uintptr_t>(c.res->send_buf());
      sge.lkey = c.res->lkey();
      ibv_send_wr wr{};
      wr.sg_list = &sge;
      wr.num_sge = 1;
      wr.wr_id = 1;
      if (wc[i].opcode == IBV_WC_RECV) {
        sge.length = std::min(wc[i].byte_len, c.peer.max_size);
        wr.opcode = IBV_WR_SEND;
      } else {
        sge.length =
            std::min<std::uint32_t>(ntohl(wc[i].imm_data), c.peer.max_size);
        wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        wr.imm_data = wc[i].imm_data;
        wr.wr.rdma.remote_addr = c.peer.addr;
        wr.wr.rdma.rkey = c.peer.rkey;
      }
      ibv_send_wr* bad = nullptr;
      if (c.res->PostRecv() != 0 || ibv_post_send(c.res->qp(), &wr, &bad)) {
        c.res.reset();
        return;
      }
      const auto now = Clock::now();
      const auto gap = now - c.last_answer;
      if (gap < kBurstGap) {
        c.gap = c.gap.count() == 0 ? gap : (3 * c.gap + gap) / 4;
      }
      c.last_answer = now;
      answered = true;
    }
  }
}

}  // namespace rnic::fabric
