#include "collectors/probe/device_session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <time.h>

#include <cerrno>

#include "collectors/nl/kernel_transport.h"
#include "collectors/probe/probe_engine.h"
#include "collectors/probing/cpu_pacer.h"

namespace rnic::probe {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kEventPollMs = 250;

bool DeviceGone(int err) { return err == ENODEV || err == EIO; }

}  // namespace

DeviceSession::DeviceSession(ProbeEngine& engine, std::string name)
    : engine_(engine), name_(std::move(name)) {}

Result<std::unique_ptr<DeviceSession>> DeviceSession::Open(
    ibv_device* dev, ProbeEngine& engine) {
  std::unique_ptr<DeviceSession> s(
      new DeviceSession(engine, ibv_get_device_name(dev)));
  s->ctx_ = ibv_open_device(dev);
  if (!s->ctx_) return Error::FromErrno("ibv_open_device " + s->name_, errno);
  if (int rc = ibv_query_device(s->ctx_, &s->attr_)) {
    return Error::FromErrno("ibv_query_device " + s->name_, rc);
  }
  s->dev_index_ = ibv_get_device_index(dev);
  s->mr_pd_ = ibv_alloc_pd(s->ctx_);
  if (!s->mr_pd_) return Error::FromErrno("ibv_alloc_pd " + s->name_, errno);
  // Non-blocking async fd: the event thread polls it with a timeout so it
  // notices shutdown.
  const int fl = fcntl(s->ctx_->async_fd, F_GETFL);
  fcntl(s->ctx_->async_fd, F_SETFL, fl | O_NONBLOCK);
  s->events_ = std::thread([p = s.get()] { p->EventLoop(); });
  return s;
}

DeviceSession::~DeviceSession() {
  // Port resources first, while the event thread still acks events (a
  // destroy waits for the events it has handed out to be acked).
  for (auto& [port, slot] : ports_) slot.probe.reset();
  stop_events_ = true;
  if (events_.joinable()) events_.join();
  if (mr_pd_) ibv_dealloc_pd(mr_pd_);
  if (ctx_) ibv_close_device(ctx_);
}

void DeviceSession::EventLoop() {
  pthread_setname_np(pthread_self(), "rnic-probe-ev");
  double cpu0 = ThreadCpuSeconds();
  while (!stop_events_.load()) {
    pollfd pfd{ctx_->async_fd, POLLIN, 0};
    const int r = poll(&pfd, 1, kEventPollMs);
    if (r > 0) {
      ibv_async_event ev{};
      while (ibv_get_async_event(ctx_, &ev) == 0) {
        int port = 0;
        bool rebuild = false;
        switch (ev.event_type) {
          case IBV_EVENT_CQ_ERR: {
            const auto c =
                reinterpret_cast<std::uintptr_t>(ev.element.cq->cq_context);
            port = static_cast<int>(c & 0xffff);
            rebuild = true;
            break;
          }
          case IBV_EVENT_QP_FATAL:
          case IBV_EVENT_QP_REQ_ERR:
          case IBV_EVENT_QP_ACCESS_ERR:
            rebuild = true;
            [[fallthrough]];
          case IBV_EVENT_COMM_EST:
          case IBV_EVENT_SQ_DRAINED:
          case IBV_EVENT_PATH_MIG:
          case IBV_EVENT_PATH_MIG_ERR:
          case IBV_EVENT_QP_LAST_WQE_REACHED:
            port = static_cast<int>(
                reinterpret_cast<std::uintptr_t>(ev.element.qp->qp_context) &
                0xffff);
            break;
          case IBV_EVENT_PORT_ERR:
          case IBV_EVENT_PORT_ACTIVE:
          case IBV_EVENT_GID_CHANGE:
          case IBV_EVENT_LID_CHANGE:
          case IBV_EVENT_PKEY_CHANGE:
          case IBV_EVENT_CLIENT_REREGISTER:
            rebuild = true;
            port = ev.element.port_num;
            break;
          case IBV_EVENT_SM_CHANGE:
            port = ev.element.port_num;
            break;
          default:
            break;
        }
        engine_.stats_->RecordAsyncEvent(name_, port,
                                         AsyncEventName(ev.event_type));
        {
          std::lock_guard lock(flags_mu_);
          if (ev.event_type == IBV_EVENT_DEVICE_FATAL) fatal_ = true;
          if (rebuild && port > 0) dirty_ports_.insert(port);
        }
        if (spdlog::should_log(spdlog::level::debug)) {
          const std::string port_s = std::to_string(port);
          LogEvent(spdlog::level::debug, "probe", "async event",
                   {{"device", name_},
                    {"port", port_s},
                    {"event", ibv_event_type_str(ev.event_type)}});
        }
        ibv_ack_async_event(&ev);
      }
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        // The fd is dead (device removed): let the engine notice, and do
        // not spin on a permanently readable fd.
        std::lock_guard lock(flags_mu_);
        fatal_ = true;
        timespec ts{0, kEventPollMs * 1000000L};
        nanosleep(&ts, nullptr);
      }
    }
    const double cpu1 = ThreadCpuSeconds();
    engine_.stats_->AddCpuSeconds(cpu1 - cpu0);
    cpu0 = cpu1;
  }
}

void DeviceSession::Problem(int port, const std::string& what) {
  auto& mem = engine_.memory_[{name_, port}];
  if (mem.last_problem != what) {
    if (what.empty()) {
      LogEvent(spdlog::level::info, "probe", "probing again",
               {{"device", name_}, {"port", std::to_string(port)}});
    } else {
      LogEvent(spdlog::level::warn, "probe", "port not probed",
               {{"device", name_},
                {"port", std::to_string(port)},
                {"reason", what}});
    }
    mem.last_problem = what;
  }
}

void DeviceSession::Teardown(int port, PortSlot& slot) {
  if (!slot.probe) return;
  slot.probe.reset();  // destroying the QPs also unbinds them
  if (slot.counter_id != 0) {
    engine_.memory_[{name_, port}].counters.Rebound();
    slot.counter_id = 0;
  }
}

bool DeviceSession::Build(int port, PortSlot& slot) {
  auto& mem = engine_.memory_[{name_, port}];
  auto& stats = *engine_.stats_;
  const auto& cfg = engine_.cfg_;
  auto p = PortProbe::Create(ctx_, attr_, port, cfg);
  if (!p) {
    if (p.error().errno_value == EOPNOTSUPP) {
      mem.rc_unsupported = true;
      for (Operation op : cfg.operations) {
        stats.SetOperationSupported(name_, port, op, false);
      }
      const std::string port_s = std::to_string(port);
      const std::string err = p.error().ToString();
      engine_.log_.Log(spdlog::level::warn, name_ + "/" + port_s + "/rc",
                       "no RC QPs; not probing this port",
                       {{"device", name_}, {"port", port_s}, {"err", err}},
                       p.error().errno_value);
    } else {
      Problem(port, "cannot build probe resources: " + p.error().ToString());
    }
    return false;
  }
  slot.probe = std::move(*p);
  if (mem.built_before) stats.RecordRebuild(name_, port);
  mem.built_before = true;
  for (Operation op : cfg.operations) {
    const bool ok = !IsAtomic(op) || attr_.atomic_cap != IBV_ATOMIC_NONE;
    stats.SetOperationSupported(name_, port, op, ok);
    if (!ok) {
      engine_.log_.Log(spdlog::level::warn, name_ + "/atomic",
                       "device has no atomic support (atomic_cap NONE); "
                       "skipping atomic operations",
                       {{"device", name_}});
    }
  }
  if (engine_.port_built_) engine_.port_built_(name_, port, *slot.probe);
  if (cfg.qp_counters && !mem.counter_unsupported) BindCounter(port, slot);
  return true;
}

void DeviceSession::BindCounter(int port, PortSlot& slot) {
  auto& mem = engine_.memory_[{name_, port}];
  auto& stats = *engine_.stats_;
  if (!engine_.nl_ && !engine_.nl_failed_) {
    // A kernel that never answers must not hold up the probe thread long.
    auto t = nl::KernelTransport::Open(std::chrono::seconds(1));
    if (t) {
      engine_.nl_transport_ = std::move(*t);
      engine_.nl_ =
          std::make_unique<nl::RdmaNetlinkSource>(*engine_.nl_transport_);
    } else {
      engine_.nl_failed_ = true;
      engine_.log_.Log(spdlog::level::warn, "nl",
                       "RDMA netlink unavailable; no per-QP counters for the "
                       "probe",
                       t.error());
    }
  }
  if (!engine_.nl_ || dev_index_ < 0) {
    stats.SetQpCounterBound(name_, port, false);
    return;
  }
  auto id = BindProbeQps(*engine_.nl_, static_cast<std::uint32_t>(dev_index_),
                         static_cast<std::uint32_t>(port), slot.probe->qpn_a(),
                         slot.probe->qpn_b());
  if (!id) {
    const Error& e = id.error();
    // These will not change by retrying; anything else is retried on the
    // next rebuild.
    if (e.errno_value == ENOMEM || e.errno_value == EOPNOTSUPP ||
        e.errno_value == EPERM || e.errno_value == EACCES ||
        e.errno_value == EINVAL) {
      mem.counter_unsupported = true;
    }
    const std::string port_s = std::to_string(port);
    const std::string err = e.ToString();
    const char* hint =
        e.errno_value == EPERM    ? "needs CAP_NET_ADMIN"
        : e.errno_value == ENOMEM ? "the driver has no per-QP counters"
        : mem.counter_unsupported ? "not retried"
                                  : "retried at the next rebuild";
    engine_.log_.Log(
        spdlog::level::warn, name_ + "/" + port_s + "/counter",
        "cannot bind the probe QPs to their own counter; "
        "rnic_probe_qp_stat_bound is 0",
        {{"device", name_}, {"port", port_s}, {"err", err}, {"hint", hint}},
        e.errno_value);
    stats.SetQpCounterBound(name_, port, false);
    return;
  }
  slot.counter_id = *id;
  stats.SetQpCounterBound(name_, port, true);
}

void DeviceSession::ProbePort(int port) {
  auto& stats = *engine_.stats_;
  const auto& cfg = engine_.cfg_;
  auto& mem = engine_.memory_[{name_, port}];
  PortSlot& slot = ports_[port];
  if (mem.rc_unsupported) return;
  bool dirty;
  {
    std::lock_guard lock(flags_mu_);
    dirty = dirty_ports_.erase(port) > 0;
  }
  if (dirty) Teardown(port, slot);

  ibv_port_attr pa{};
  if (int rc = ibv_query_port(ctx_, static_cast<std::uint8_t>(port), &pa)) {
    Teardown(port, slot);
    Problem(port, std::string("ibv_query_port: ") + std::strerror(rc));
    stats.RecordRound(name_, port, false);
    if (DeviceGone(rc)) {
      std::lock_guard lock(flags_mu_);
      fatal_ = true;
    }
    return;
  }
  if (pa.state != IBV_PORT_ACTIVE) {
    Teardown(port, slot);
    Problem(port, std::string("port not active (") +
                      ibv_port_state_str(pa.state) + ")");
    stats.RecordRound(name_, port, false);
    return;
  }
  if (!slot.probe && !Build(port, slot)) {
    if (!mem.rc_unsupported) stats.RecordRound(name_, port, false);
    return;
  }
  bool ok = true;
  for (Operation op : cfg.operations) {
    if (IsAtomic(op) && attr_.atomic_cap == IBV_ATOMIC_NONE) continue;
    for (std::uint32_t size : cfg.sizes) {
      if (IsAtomic(op)) size = 8;
      if (engine_.stopping()) return;
      OpOutcome out = slot.probe->Run(op, size, cfg.iterations);
      stats.AddCpuSeconds(out.responder_cpu_seconds);
      if (!out.samples.empty()) {
        stats.RecordLatencies(name_, port, op, size, out.samples);
      }
      if (!out.ok()) {
        ok = false;
        std::string what = std::string(OperationName(op)) + " " +
                           std::to_string(size) + " B: ";
        if (out.timeout) {
          stats.RecordTimeout(name_, port, op, size);
          what += "timeout";
        }
        if (out.wc_status) {
          stats.RecordCompletionError(name_, port, op,
                                      WcStatusName(*out.wc_status));
          what += ibv_wc_status_str(static_cast<ibv_wc_status>(*out.wc_status));
        }
        what += out.error;
        Problem(port, what + "; rebuilding");
        Teardown(port, slot);
        break;
      }
      if (IsAtomic(op)) break;  // one size for atomics
    }
    if (!ok) break;
  }
  stats.RecordRound(name_, port, ok);
  if (ok) Problem(port, "");
  if (ok && slot.counter_id != 0 && engine_.nl_) {
    auto v = ReadQpCounter(*engine_.nl_, static_cast<std::uint32_t>(dev_index_),
                           static_cast<std::uint32_t>(port), slot.counter_id);
    if (v) {
      mem.counters.Update(*v);
      stats.SetQpCounterValues(name_, port, mem.counters.Values());
    }
  }
}

void DeviceSession::MeasureMr() {
  const auto& cfg = engine_.cfg_;
  if (cfg.mr_sizes.empty() || cfg.mr_interval.count() == 0) return;
  const auto now = Clock::now();
  if (now < next_mr_) return;
  const double cpu0 = ThreadCpuSeconds();
  MeasureMrSizes();
  const double cost = ThreadCpuSeconds() - cpu0;
  engine_.mr_cpu_seconds_ += cost;
  next_mr_ = now + std::chrono::duration_cast<Clock::duration>(PacedGap(
                       cfg.mr_interval, cost,
                       cfg.cpu_budget_percent / 100.0 * kMrBudgetShare));
}

void DeviceSession::MeasureMrSizes() {
  const auto& cfg = engine_.cfg_;
  for (std::uint64_t size : cfg.mr_sizes) {
    if (engine_.stopping()) return;
    // Populated up front: the histogram is the cost of pinning and mapping,
    // not of first-touch page faults.
    void* buf = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (buf == MAP_FAILED) {
      const std::string size_s = std::to_string(size);
      engine_.log_.Log(spdlog::level::warn, name_ + "/mmap/" + size_s,
                       "cannot map a buffer for the MR measurement",
                       {{"device", name_}, {"size_bytes", size_s}});
      continue;
    }
    const auto t0 = Clock::now();
    ibv_mr* mr = ibv_reg_mr(mr_pd_, buf, size, IBV_ACCESS_LOCAL_WRITE);
    const auto t1 = Clock::now();
    if (!mr) {
      const int err = errno;
      const std::string size_s = std::to_string(size);
      engine_.log_.Log(
          spdlog::level::warn, name_ + "/mr/" + size_s,
          "ibv_reg_mr failed; skipping that size",
          {{"device", name_},
           {"size_bytes", size_s},
           {"err", std::strerror(err)},
           {"hint", err == ENOMEM ? "RLIMIT_MEMLOCK too low?" : "none"}},
          err);
      munmap(buf, size);
      continue;
    }
    const auto t2 = Clock::now();
    ibv_dereg_mr(mr);
    const auto t3 = Clock::now();
    munmap(buf, size);
    engine_.stats_->RecordMr(name_, size,
                             std::chrono::duration<double>(t1 - t0).count(),
                             std::chrono::duration<double>(t3 - t2).count());
  }
}

bool DeviceSession::RunRound() {
  {
    std::lock_guard lock(flags_mu_);
    if (fatal_) return false;
  }
  for (int port = 1; port <= attr_.phys_port_cnt; ++port) {
    if (engine_.stopping()) return true;
    if (!engine_.cfg_.WantsPort(port)) continue;
    ProbePort(port);
  }
  MeasureMr();
  std::lock_guard lock(flags_mu_);
  return !fatal_;
}

}  // namespace rnic::probe
