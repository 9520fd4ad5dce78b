#include "collectors/probe/port_probe.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

#include "collectors/probing/cpu_pacer.h"

namespace rnic::probe {
namespace {

using Clock = std::chrono::steady_clock;

// Busy-poll this long before sleeping between polls: long enough for any
// real RDMA completion, short enough that a dead port costs little CPU.
constexpr auto kSpin = std::chrono::microseconds(200);
constexpr auto kNap = std::chrono::microseconds(50);

constexpr int kAccess =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

bool IsIpv4Mapped(const ibv_gid& g) {
  static const std::uint8_t kPrefix[12] = {0, 0, 0, 0, 0,    0,
                                           0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.raw, kPrefix, sizeof(kPrefix)) == 0;
}

void Nap() {
  timespec ts{0, std::chrono::nanoseconds(kNap).count()};
  nanosleep(&ts, nullptr);
}

std::uint8_t LoadByte(const char* p) {
  return static_cast<std::uint8_t>(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

// WRITE tags run 1..255; 0 means "nothing arrived".
std::uint8_t NextTag(std::uint8_t t) {
  return t == 255 ? 1 : static_cast<std::uint8_t>(t + 1);
}

}  // namespace

Result<int> ChooseGid(ibv_context* ctx, int port, const ibv_port_attr& attr,
                      int configured) {
  if (configured >= 0) return configured;
  if (attr.link_layer != IBV_LINK_LAYER_ETHERNET) return 0;
  // Entry by entry: ibv_query_gid_table() needs a buffer for the whole
  // device table, which overflows the ioctl's 16-bit length on rxe (1024
  // entries). The IPv4-mapped entry sits near the start, so this is short.
  int first = -1, first_v2 = -1;
  for (int idx = 0; idx < attr.gid_tbl_len; ++idx) {
    ibv_gid_entry e{};
    if (ibv_query_gid_ex(ctx, static_cast<std::uint32_t>(port),
                         static_cast<std::uint32_t>(idx), &e, 0) != 0) {
      continue;  // ENODATA: empty entry
    }
    if (first < 0) first = idx;
    if (e.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
    if (first_v2 < 0) first_v2 = idx;
    if (IsIpv4Mapped(e.gid)) return idx;
  }
  if (first_v2 >= 0) return first_v2;
  if (first >= 0) return first;
  return Error{"no valid GID on the port (netdev without an address?)",
               ENODATA};
}

PortProbe::PortProbe(ibv_context* ctx, int port, const ProbeConfig& cfg)
    : ctx_(ctx), port_(port), cfg_(cfg) {}

Result<std::unique_ptr<PortProbe>> PortProbe::Create(
    ibv_context* ctx, const ibv_device_attr& dev_attr, int port,
    const ProbeConfig& cfg) {
  std::unique_ptr<PortProbe> p(new PortProbe(ctx, port, cfg));
  if (Status s = p->Build(dev_attr); !s.ok()) return s.error();
  return p;
}

PortProbe::~PortProbe() {
  // The responder touches B's QP, CQ and buffer: it goes first.
  if (responder_.joinable()) {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      burst_.reset();
    }
    abort_.store(true);
    wake_.notify_all();
    responder_.join();
  }
  // QPs before CQs, MRs before the PD: the order the kernel insists on.
  for (auto& s : side_) {
    if (s.qp) ibv_destroy_qp(s.qp);
  }
  for (auto& s : side_) {
    if (s.cq) ibv_destroy_cq(s.cq);
    if (s.mr) ibv_dereg_mr(s.mr);
    if (s.buf) munmap(s.buf, buf_bytes_);
  }
  if (pd_) ibv_dealloc_pd(pd_);
}

Status PortProbe::Build(const ibv_device_attr& dev_attr) {
  if (ibv_query_port(ctx_, static_cast<std::uint8_t>(port_), &port_attr_)) {
    return Error::FromErrno("ibv_query_port", errno);
  }
  auto gid = ChooseGid(ctx_, port_, port_attr_, cfg_.gid_index);
  if (!gid) return gid.error();
  gid_index_ = *gid;
  if (ibv_query_gid(ctx_, static_cast<std::uint8_t>(port_), gid_index_,
                    &gid_)) {
    return Error::FromErrno("ibv_query_gid " + std::to_string(gid_index_),
                            errno);
  }
  pd_ = ibv_alloc_pd(ctx_);
  if (!pd_) return Error::FromErrno("ibv_alloc_pd", errno);

  slot_bytes_ = (cfg_.MaxSize() + 63) / 64 * 64;
  buf_bytes_ = (4 * slot_bytes_ + 4095) / 4096 * 4096;
  int access = kAccess;
  if (dev_attr.atomic_cap != IBV_ATOMIC_NONE)
    access |= IBV_ACCESS_REMOTE_ATOMIC;
  const int sq = std::min(cfg_.sq_depth, dev_attr.max_qp_wr);
  const int rq = std::min(cfg_.rq_depth, dev_attr.max_qp_wr);
  const int cqe = std::min(cfg_.cq_depth, dev_attr.max_cqe);
  for (auto& s : side_) {
    void* mem = mmap(nullptr, buf_bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED) return Error::FromErrno("mmap", errno);
    s.buf = static_cast<char*>(mem);
    s.mr = ibv_reg_mr(pd_, s.buf, buf_bytes_, access);
    if (!s.mr) return Error::FromErrno("ibv_reg_mr", errno);
    s.cq = ibv_create_cq(
        ctx_, cqe, reinterpret_cast<void*>(static_cast<std::uintptr_t>(port_)),
        nullptr, 0);
    if (!s.cq) return Error::FromErrno("ibv_create_cq", errno);
    ibv_qp_init_attr ia{};
    ia.qp_context = reinterpret_cast<void*>(static_cast<std::uintptr_t>(port_));
    ia.send_cq = s.cq;
    ia.recv_cq = s.cq;
    ia.qp_type = IBV_QPT_RC;
    ia.sq_sig_all = 0;
    ia.cap.max_send_wr = static_cast<std::uint32_t>(sq);
    ia.cap.max_recv_wr = static_cast<std::uint32_t>(rq);
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    ia.cap.max_inline_data = 64;
    s.qp = ibv_create_qp(pd_, &ia);
    if (!s.qp) {
      // Some providers refuse inline data; retry without it.
      ia.cap.max_inline_data = 0;
      s.qp = ibv_create_qp(pd_, &ia);
    }
    if (!s.qp) {
      const int err = errno;
      return Error::FromErrno(
          "ibv_create_qp(RC)",
          err == EINVAL || err == EOPNOTSUPP ? EOPNOTSUPP : err);
    }
    max_inline_ = ia.cap.max_inline_data;
  }
  if (Status st = Connect(side_[0], side_[1]); !st.ok()) return st;
  if (Status st = Connect(side_[1], side_[0]); !st.ok()) return st;
  for (auto& s : side_) {
    for (int i = 0; i < std::min(rq, 4); ++i) {
      if (Status st = PostRecv(s); !st.ok()) return st;
    }
  }
  if (!cfg_.two_sided_write) return Status::Ok();
  try {
    responder_ = std::thread([this] { ResponderMain(); });
  } catch (const std::system_error& e) {
    return Error{std::string("probe responder thread: ") + e.what(),
                 e.code().value()};
  }
  return Status::Ok();
}

Status PortProbe::Connect(Side& self, const Side& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = static_cast<std::uint8_t>(port_);
  a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                      IBV_ACCESS_REMOTE_ATOMIC;
  if (ibv_modify_qp(self.qp, &a,
                    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                        IBV_QP_ACCESS_FLAGS)) {
    return Error::FromErrno("modify_qp INIT", errno);
  }
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = port_attr_.active_mtu;
  a.dest_qp_num = peer.qp->qp_num;
  a.rq_psn = 0;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.port_num = static_cast<std::uint8_t>(port_);
  a.ah_attr.dlid = port_attr_.lid;
  if (port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET) {
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = gid_;
    a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(gid_index_);
    a.ah_attr.grh.hop_limit = 1;
  }
  if (ibv_modify_qp(self.qp, &a,
                    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                        IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
    return Error::FromErrno("modify_qp RTR", errno);
  }
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;  // 4.096 us * 2^14 = 67 ms per transport retry
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = 0;
  a.max_rd_atomic = 1;
  if (ibv_modify_qp(self.qp, &a,
                    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                        IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                        IBV_QP_MAX_QP_RD_ATOMIC)) {
    return Error::FromErrno("modify_qp RTS", errno);
  }
  return Status::Ok();
}

Status PortProbe::PostRecv(Side& s) {
  ibv_sge sge{reinterpret_cast<std::uintptr_t>(Slot(s, 2)),
              static_cast<std::uint32_t>(slot_bytes_), s.mr->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = 0;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(s.qp, &wr, &bad)) {
    return Error::FromErrno("ibv_post_recv", rc);
  }
  return Status::Ok();
}

Status PortProbe::PostOne(Side& from, const Side& to, Operation op,
                          std::uint32_t size) {
  ibv_sge sge{};
  ibv_send_wr wr{};
  wr.wr_id = ++from.wr_seq;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED;
  sge.lkey = from.mr->lkey;
  sge.addr = reinterpret_cast<std::uintptr_t>(Slot(from, 1));
  sge.length = size;
  switch (op) {
    case Operation::kSend:
      wr.opcode = IBV_WR_SEND;
      break;
    case Operation::kWrite:
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(Slot(to, 0));
      wr.wr.rdma.rkey = to.mr->rkey;
      break;
    case Operation::kRead:
      wr.opcode = IBV_WR_RDMA_READ;
      wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(Slot(to, 0));
      wr.wr.rdma.rkey = to.mr->rkey;
      break;
    case Operation::kAtomicCmpSwap:
    case Operation::kAtomicFetchAdd:
      sge.length = 8;
      wr.opcode = op == Operation::kAtomicCmpSwap ? IBV_WR_ATOMIC_CMP_AND_SWP
                                                  : IBV_WR_ATOMIC_FETCH_AND_ADD;
      wr.wr.atomic.remote_addr = reinterpret_cast<std::uintptr_t>(Slot(to, 3));
      wr.wr.atomic.rkey = to.mr->rkey;
      wr.wr.atomic.compare_add =
          op == Operation::kAtomicCmpSwap ? atomic_expect_ : 1;
      wr.wr.atomic.swap = atomic_expect_ + 1;
      ++atomic_expect_;  // both ops move the word up by one
      break;
  }
  if ((op == Operation::kSend || op == Operation::kWrite) &&
      size <= max_inline_) {
    wr.send_flags |= IBV_SEND_INLINE;
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(from.qp, &wr, &bad)) {
    return Error::FromErrno("ibv_post_send", rc);
  }
  return Status::Ok();
}

template <typename Pred>
bool PortProbe::Reap(Side& s, Pred done, Clock::time_point deadline,
                     OpOutcome& out) {
  const auto spin_until = Clock::now() + kSpin;
  ibv_wc wc[8];
  while (!done()) {
    const int n = ibv_poll_cq(s.cq, 8, wc);
    if (n < 0) {
      out.error = "ibv_poll_cq failed";
      return false;
    }
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        if (!out.wc_status) out.wc_status = wc[i].status;
        return false;
      }
      if (wc[i].opcode & IBV_WC_RECV) {
        ++s.recvs_done;
        if (Status st = PostRecv(s); !st.ok()) {
          out.error = st.error().ToString();
          return false;
        }
      } else {
        ++s.sends_done;
      }
    }
    if (n > 0) continue;
    if (Aborted()) return false;  // the peer failed; it reports why
    const auto now = Clock::now();
    if (now >= deadline) {
      out.timeout = true;
      return false;
    }
    if (now >= spin_until) Nap();
  }
  return true;
}

template <typename Pred>
bool PortProbe::WaitMemory(Pred ready, Clock::time_point deadline) {
  const auto spin_until = Clock::now() + kSpin;
  while (!ready()) {
    if (Aborted()) return false;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    if (now >= spin_until) Nap();
  }
  return true;
}

// Side A's half of one ping (or one request) of `op`. WRITE goes A -> B -> A
// with the responder thread answering on B; SEND runs both sides here. Like
// each perftest side, A reaps its own send completion inside the timed
// region.
bool PortProbe::OneIteration(Operation op, std::uint32_t size, OpOutcome& out) {
  Side& a = side_[0];
  Side& b = side_[1];
  const auto deadline = Clock::now() + cfg_.op_timeout;
  const std::uint64_t a_sends = a.sends_done;
  auto fail_post = [&](const Status& st) {
    out.error = st.error().ToString();
    return false;
  };
  switch (op) {
    case Operation::kWrite: {
      tag_ = NextTag(tag_);
      const std::size_t last = size - 1;
      Slot(a, 1)[last] = static_cast<char>(tag_);
      if (!cfg_.two_sided_write) {
        // Both sides in this thread (the default, see README). Clear the
        // polled bytes: an earlier, larger WRITE may have left a tag there.
        const std::uint64_t b_sends = b.sends_done;
        Slot(a, 0)[last] = 0;
        Slot(b, 0)[last] = 0;
        Slot(b, 1)[last] = static_cast<char>(tag_);
        if (Status st = PostOne(a, b, op, size); !st.ok()) {
          return fail_post(st);
        }
        if (!WaitMemory([&] { return LoadByte(Slot(b, 0) + last) == tag_; },
                        deadline)) {
          out.timeout = true;
          return false;
        }
        if (Status st = PostOne(b, a, op, size); !st.ok()) {
          return fail_post(st);
        }
        if (!WaitMemory([&] { return LoadByte(Slot(a, 0) + last) == tag_; },
                        deadline)) {
          out.timeout = true;
          return false;
        }
        return Reap(
                   a, [&] { return a.sends_done > a_sends; }, deadline, out) &&
               Reap(
                   b, [&] { return b.sends_done > b_sends; }, deadline, out);
      }
      if (Status st = PostOne(a, b, op, size); !st.ok()) return fail_post(st);
      if (!WaitMemory([&] { return LoadByte(Slot(a, 0) + last) == tag_; },
                      deadline)) {
        if (!Aborted()) out.timeout = true;
        return false;
      }
      return Reap(
          a, [&] { return a.sends_done > a_sends; }, deadline, out);
    }
    case Operation::kSend: {
      // Both sides in this thread: with B's answer posted from a second
      // thread, rxe (Linux 6.1) left the answer unsent about once in ten
      // bursts until the timeout (see README).
      const std::uint64_t a_recvs = a.recvs_done, b_recvs = b.recvs_done;
      const std::uint64_t b_sends = b.sends_done;
      if (Status st = PostOne(a, b, op, size); !st.ok()) return fail_post(st);
      if (!Reap(
              b, [&] { return b.recvs_done > b_recvs; }, deadline, out)) {
        return false;
      }
      if (Status st = PostOne(b, a, op, size); !st.ok()) return fail_post(st);
      return Reap(
                 a,
                 [&] {
                   return a.recvs_done > a_recvs && a.sends_done > a_sends;
                 },
                 deadline, out) &&
             Reap(
                 b, [&] { return b.sends_done > b_sends; }, deadline, out);
    }
    case Operation::kRead:
    case Operation::kAtomicCmpSwap:
    case Operation::kAtomicFetchAdd: {
      if (Status st = PostOne(a, b, op, size); !st.ok()) return fail_post(st);
      return Reap(
          a, [&] { return a.sends_done > a_sends; }, deadline, out);
    }
  }
  return false;
}

// Side B, perftest's order: wait for the ping, post the answer, reap the
// answer's send completion. Each wait is bounded by the per-op timeout and
// ends early when A gives up.
void PortProbe::Respond(const Burst& job, OpOutcome& out) {
  Side& a = side_[0];
  Side& b = side_[1];
  std::uint8_t tag = job.tag;
  const std::size_t last = job.size - 1;
  for (int i = 0; i < job.count; ++i) {
    const auto deadline = Clock::now() + cfg_.op_timeout;
    const std::uint64_t b_sends = b.sends_done;
    tag = NextTag(tag);
    if (!WaitMemory([&] { return LoadByte(Slot(b, 0) + last) == tag; },
                    deadline)) {
      if (!Aborted()) out.timeout = true;
      return;
    }
    Slot(b, 1)[last] = static_cast<char>(tag);
    if (Status st = PostOne(b, a, job.op, job.size); !st.ok()) {
      out.error = st.error().ToString();
      return;
    }
    if (!Reap(
            b, [&] { return b.sends_done > b_sends; }, deadline, out)) {
      return;
    }
  }
}

void PortProbe::ResponderMain() {
  pthread_setname_np(pthread_self(), "rnic-probe-rsp");
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool have_allowed =
      sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
      CPU_COUNT(&allowed) > 1;
  int avoiding = -1;
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || burst_.has_value(); });
    if (stop_) return;
    const Burst job = *burst_;
    burst_.reset();
    busy_ = true;
    lock.unlock();
    // Woken by the probe thread, the scheduler tends to put this thread on
    // the probe thread's CPU, where the two spin in turn. Keep off it.
    if (have_allowed && job.avoid_cpu >= 0 && job.avoid_cpu != avoiding &&
        CPU_ISSET(job.avoid_cpu, &allowed)) {
      cpu_set_t set = allowed;
      CPU_CLR(job.avoid_cpu, &set);
      if (sched_setaffinity(0, sizeof(set), &set) == 0)
        avoiding = job.avoid_cpu;
    }
    const double cpu0 = ThreadCpuSeconds();
    OpOutcome out;
    Respond(job, out);
    if (!out.ok()) abort_.store(true);  // A stops waiting for an answer
    out.responder_cpu_seconds = ThreadCpuSeconds() - cpu0;
    lock.lock();
    responder_out_ = std::move(out);
    busy_ = false;
    idle_.notify_all();
  }
}

void PortProbe::StartBurst(Operation op, std::uint32_t size, int count) {
  // Both sides poll the last byte for a tag. A larger earlier WRITE may
  // have copied an old tag there, so clear it while nothing is in flight.
  Slot(side_[0], 0)[size - 1] = 0;
  Slot(side_[1], 0)[size - 1] = 0;
  {
    std::lock_guard lock(mu_);
    responder_out_ = OpOutcome{};
    burst_ =
        Burst{op, size, count, tag_, cfg_.split_cpus ? sched_getcpu() : -1};
  }
  wake_.notify_one();
}

void PortProbe::EndBurst(bool a_failed, OpOutcome& out) {
  if (a_failed) abort_.store(true);
  OpOutcome r;
  {
    std::unique_lock lock(mu_);
    burst_.reset();  // not taken yet (A failed at once): nothing to answer
    idle_.wait(lock, [&] { return !busy_; });
    r = std::move(responder_out_);
  }
  abort_.store(false);
  out.responder_cpu_seconds += r.responder_cpu_seconds;
  if (r.ok()) {
    // A failed on its own and says why; the guard only keeps a failed run
    // from ever looking good.
    if (a_failed && out.ok()) out.error = "side A stopped";
    return;
  }
  // A stopped because B failed: B's reason is the one to count.
  if (!out.wc_status && r.wc_status) out.wc_status = r.wc_status;
  if (out.error.empty() && !r.error.empty()) out.error = "side B: " + r.error;
  if (!out.wc_status && out.error.empty() && r.timeout) out.timeout = true;
}

OpOutcome PortProbe::Run(Operation op, std::uint32_t size, int iterations) {
  OpOutcome out;
  if (IsAtomic(op)) size = 8;
  out.samples.reserve(static_cast<std::size_t>(iterations));
  const bool two_sided = op == Operation::kWrite && cfg_.two_sided_write;
  if (two_sided) StartBurst(op, size, iterations + 1);
  bool ok = OneIteration(op, size, out);  // warm-up, not recorded
  const double factor = IsHalfRoundTrip(op) ? 0.5 : 1.0;
  for (int i = 0; ok && i < iterations; ++i) {
    const auto t0 = Clock::now();
    ok = OneIteration(op, size, out);
    const auto t1 = Clock::now();
    if (ok) {
      out.samples.push_back(std::chrono::duration<double>(t1 - t0).count() *
                            factor);
    }
  }
  if (two_sided) EndBurst(!ok, out);
  return out;
}

Status PortProbe::ConnectLoopback(ibv_qp* a, ibv_qp* b) {
  Side sa;
  Side sb;
  sa.qp = a;
  sb.qp = b;
  if (Status s = Connect(sa, sb); !s.ok()) return s;
  return Connect(sb, sa);
}

}  // namespace rnic::probe
