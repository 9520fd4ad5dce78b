#include "tests/tools/probe_test_hooks/cq_overrun.h"

#include <infiniband/verbs.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <memory>
#include <string>
#include <thread>

#include "collectors/common/log_once.h"

namespace rnic::test_hooks {
namespace {

// A throw-away QP pair whose only CQ has one entry. The CQ's context is
// marked foreign so the probe counts its CQ_ERR without rebuilding.
Status Overrun(probe::PortProbe& p, int writes) {
  ibv_cq* cq = ibv_create_cq(
      p.context(), 1,
      reinterpret_cast<void*>(static_cast<std::uintptr_t>(p.port()) |
                              probe::kForeignCqFlag),
      nullptr, 0);
  if (!cq) return Error::FromErrno("ibv_create_cq(1)", errno);
  alignas(64) static std::array<char, 64> buf{};
  ibv_mr* mr = ibv_reg_mr(p.pd(), buf.data(), buf.size(),
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  Status result = Status::Ok();
  if (!mr) result = Error::FromErrno("ibv_reg_mr(overrun)", errno);
  std::array<ibv_qp*, 2> qp{};
  for (auto& q : qp) {
    if (!result.ok()) break;
    ibv_qp_init_attr ia{};
    ia.qp_context =
        reinterpret_cast<void*>(static_cast<std::uintptr_t>(p.port()));
    ia.send_cq = cq;
    ia.recv_cq = cq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = static_cast<std::uint32_t>(writes);
    ia.cap.max_recv_wr = 1;
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    q = ibv_create_qp(p.pd(), &ia);
    if (!q) result = Error::FromErrno("ibv_create_qp(overrun)", errno);
  }
  if (result.ok()) result = p.ConnectLoopback(qp[0], qp[1]);
  for (int i = 0; i < writes && result.ok(); ++i) {
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(buf.data()), 8, mr->lkey};
    ibv_send_wr wr{};
    wr.wr_id = static_cast<std::uint64_t>(i);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(buf.data() + 32);
    wr.wr.rdma.rkey = mr->rkey;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(qp[0], &wr, &bad)) {
      result = Error::FromErrno("ibv_post_send(overrun)", rc);
    }
  }
  // Give the provider time to complete (and drop) the writes.
  if (result.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (auto* q : qp) {
    if (q) ibv_destroy_qp(q);
  }
  if (mr) ibv_dereg_mr(mr);
  ibv_destroy_cq(cq);
  return result;
}

}  // namespace

probe::PortBuiltHook CqOverrunHook(int writes) {
  // Every build of a port's probe pair (the first, and each rebuild after a
  // link flap), so a case can cause an overrun while Prometheus watches.
  return [writes](const std::string& device, int /*port*/,
                  probe::PortProbe& p) {
    if (Status s = Overrun(p, writes); !s.ok()) {
      const std::string err = s.error().ToString();
      LogEvent(spdlog::level::warn, "probe", "test hook: CQ overrun failed",
               {{"device", device}, {"err", err}});
    }
  };
}

}  // namespace rnic::test_hooks
