#include "tests/tools/probe_test_hooks/cq_overrun.h"

#include <infiniband/verbs.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <memory>
#include <set>
#include <utility>
#include <string>
#include <thread>

#include "collectors/common/log_once.h"

namespace rnic::test_hooks {
namespace {

// A throw-away QP pair on the probe's PD whose send and receive CQ is the
// probe's own side-A CQ: cqe + 1 signaled WRITEs overrun it. Runs on the
// probe thread between the build and the first round, so nothing else polls
// that CQ meanwhile.
Status Overrun(probe::PortProbe& p) {
  ibv_cq* cq = p.cq_a();
  const int writes = cq->cqe + 1;
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
  // Give the provider time to complete the writes (the last one overruns)
  // and the async-event thread time to ask for the rebuild; then take this
  // pair's completions out, so the probe's next round (if it runs before
  // the rebuild) never reaps a foreign wr_id.
  if (result.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::array<ibv_wc, 16> wc{};
  while (ibv_poll_cq(cq, static_cast<int>(wc.size()), wc.data()) > 0) {
  }
  for (auto* q : qp) {
    if (q) ibv_destroy_qp(q);
  }
  if (mr) ibv_dereg_mr(mr);
  return result;
}

}  // namespace

probe::PortBuiltHook CqOverrunHook() {
  // Ports whose last build the hook's own overrun caused. Only the probe
  // thread calls the hook.
  auto caused = std::make_shared<std::set<std::pair<std::string, int>>>();
  return [caused](const std::string& device, int port, probe::PortProbe& p) {
    if (caused->erase({device, port}) > 0) return;
    if (Status s = Overrun(p); !s.ok()) {
      const std::string err = s.error().ToString();
      LogEvent(spdlog::level::warn, "probe", "test hook: CQ overrun failed",
               {{"device", device}, {"err", err}});
      return;
    }
    caused->insert({device, port});
  };
}

}  // namespace rnic::test_hooks
