// The verbs resources of one probed port: a PD, one CQ per QP, a loopback
// RC QP pair (A <-> B) and one registered buffer per QP. Runs the timed
// operations. Owned and used by the probe thread, which drives side A; a
// responder thread of its own answers on side B during WRITE bursts (as
// perftest's second process does) and sleeps otherwise.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/probe/probe_config.h"

namespace rnic::probe {

// cq_context / qp_context carry the port number so the async event thread
// can label an event without a lookup table.

// GID choice for RoCE: the configured index, else the first RoCEv2 entry
// holding an IPv4-mapped address, else the first RoCEv2, else the first.
// For InfiniBand ports the GID is not used (LID routing) and 0 is returned.
[[nodiscard]] Result<int> ChooseGid(ibv_context* ctx, int port,
                                    const ibv_port_attr& attr, int configured);

struct OpOutcome {
  std::vector<double> samples;       // seconds, one per timed iteration
  bool timeout = false;              // an operation did not complete in time
  std::optional<int> wc_status;      // first error completion, if any
  std::string error;                 // a post or poll call failed
  double responder_cpu_seconds = 0;  // side B's thread CPU time in this run
  [[nodiscard]] bool ok() const {
    return !timeout && !wc_status && error.empty();
  }
};

class PortProbe {
 public:
  // errno_value EOPNOTSUPP in the error: the device cannot do RC at all.
  [[nodiscard]] static Result<std::unique_ptr<PortProbe>> Create(
      ibv_context* ctx, const ibv_device_attr& dev_attr, int port,
      const ProbeConfig& cfg);
  ~PortProbe();
  PortProbe(const PortProbe&) = delete;
  PortProbe& operator=(const PortProbe&) = delete;

  // One untimed warm-up, then `iterations` timed ones. Stops at the first
  // failure; the QPs are then in an unknown state and the caller rebuilds.
  [[nodiscard]] OpOutcome Run(Operation op, std::uint32_t size, int iterations);
  // For objects made beside the probe pair on the same context (the test
  // build's fault injection, tests/tools/probe_test_hooks): the context,
  // the PD, and loopback connection of two RC QPs of this port the way the
  // pair is connected.
  [[nodiscard]] ibv_context* context() const { return ctx_; }
  [[nodiscard]] ibv_pd* pd() const { return pd_; }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] Status ConnectLoopback(ibv_qp* a, ibv_qp* b);

  // Side A's CQ: the test build overruns it to drive the probe's own
  // CQ_ERR handling.
  [[nodiscard]] ibv_cq* cq_a() const { return side_[0].cq; }
  [[nodiscard]] std::uint32_t qpn_a() const { return side_[0].qp->qp_num; }
  [[nodiscard]] std::uint32_t qpn_b() const { return side_[1].qp->qp_num; }
  [[nodiscard]] int gid_index() const { return gid_index_; }

 private:
  struct Side {
    ibv_cq* cq = nullptr;
    ibv_qp* qp = nullptr;
    ibv_mr* mr = nullptr;
    char* buf = nullptr;
    std::uint64_t sends_done = 0;  // send-side completions reaped
    std::uint64_t recvs_done = 0;  // receive completions reaped
    std::uint64_t wr_seq = 0;      // wr_id of the last send posted
  };
  // One WRITE burst for the responder: `count` pings to answer.
  struct Burst {
    Operation op;
    std::uint32_t size;
    int count;
    std::uint8_t tag;  // the tag before the burst's first ping
    int avoid_cpu;     // the probe thread's CPU, or -1
  };
  PortProbe(ibv_context* ctx, int port, const ProbeConfig& cfg);
  [[nodiscard]] Status Build(const ibv_device_attr& dev_attr);
  [[nodiscard]] Status Connect(Side& self, const Side& peer);
  [[nodiscard]] Status PostRecv(Side& s);
  [[nodiscard]] Status PostOne(Side& from, const Side& to, Operation op,
                               std::uint32_t size);
  // Polls `s.cq` until `done()` holds or `deadline`; spins briefly, then
  // sleeps between polls so a stalled port cannot burn a core.
  template <typename Pred>
  [[nodiscard]] bool Reap(Side& s, Pred done,
                          std::chrono::steady_clock::time_point deadline,
                          OpOutcome& out);
  template <typename Pred>
  [[nodiscard]] bool WaitMemory(Pred ready,
                                std::chrono::steady_clock::time_point deadline);
  [[nodiscard]] bool OneIteration(Operation op, std::uint32_t size,
                                  OpOutcome& out);
  // Side B: sleeps until a burst is armed, answers it, reports back.
  void ResponderMain();
  void Respond(const Burst& job, OpOutcome& out);
  void StartBurst(Operation op, std::uint32_t size, int count);
  // Waits (bounded by the per-op timeout) until the responder is idle and
  // folds its failure, if any, into `out`.
  void EndBurst(bool a_failed, OpOutcome& out);
  [[nodiscard]] bool Aborted() const {
    return abort_.load(std::memory_order_relaxed);
  }

  char* Slot(const Side& s, int slot) const {
    return s.buf + static_cast<std::size_t>(slot) * slot_bytes_;
  }

  ibv_context* ctx_;
  int port_;
  ProbeConfig cfg_;
  ibv_port_attr port_attr_{};
  int gid_index_ = 0;
  ibv_gid gid_{};
  ibv_pd* pd_ = nullptr;
  Side side_[2];
  std::size_t slot_bytes_ = 0;
  std::size_t buf_bytes_ = 0;
  std::uint32_t max_inline_ = 0;
  std::uint64_t atomic_expect_ = 0;  // B's atomic word, as A last left it
  std::uint8_t tag_ = 0;  // A's WRITE tag; the responder keeps its own copy

  std::mutex mu_;
  std::condition_variable wake_;  // responder: a burst or stop
  std::condition_variable idle_;  // probe thread: the burst is over
  std::optional<Burst> burst_;    // armed, not yet taken by the responder
  bool busy_ = false;             // the responder is answering a burst
  bool stop_ = false;
  OpOutcome responder_out_;
  // Set by the side that fails, so the other stops polling at once; also by
  // the destructor.
  std::atomic<bool> abort_{false};
  std::thread responder_;  // last member: joined in the destructor first
};

}  // namespace rnic::probe
