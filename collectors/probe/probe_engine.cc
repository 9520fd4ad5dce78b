#include "collectors/probe/probe_engine.h"

#include <infiniband/verbs.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include "collectors/probe/device_session.h"
#include "collectors/probing/cpu_pacer.h"
#include "collectors/probing/round_schedule.h"

namespace rnic::probe {
namespace {}  // namespace

ProbeEngine::ProbeEngine(ProbeConfig cfg, std::shared_ptr<ProbeStats> stats,
                         PortBuiltHook port_built)
    : cfg_(std::move(cfg)),
      stats_(std::move(stats)),
      port_built_(std::move(port_built)) {}

ProbeEngine::~ProbeEngine() { Stop(); }

void ProbeEngine::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void ProbeEngine::Stop() {
  {
    std::lock_guard lock(wake_mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProbeEngine::Discover() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list) {
    log_.Log(spdlog::level::warn, "list", "ibv_get_device_list failed",
             Error::FromErrno("ibv_get_device_list", errno));
    n = 0;
  }
  std::set<std::string> present;
  for (int i = 0; i < n; ++i) {
    const std::string name = ibv_get_device_name(list[i]);
    if (!cfg_.WantsDevice(name)) continue;
    present.insert(name);
    if (sessions_.count(name)) continue;
    auto s = DeviceSession::Open(list[i], *this);
    if (!s) {
      const std::string err = s.error().ToString();
      log_.Log(spdlog::level::warn, "open/" + name, "cannot open device",
               {{"device", name}, {"err", err}}, s.error().errno_value);
      continue;
    }
    LogEvent(spdlog::level::info, "probe", "probing device",
             {{"device", name}});
    sessions_.emplace(name, std::move(*s));
  }
  if (list) ibv_free_device_list(list);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (!present.count(it->first)) {
      // Closing promptly matters: a driver without disassociate (rxe)
      // cannot finish unregistering while a context is open.
      LogEvent(spdlog::level::warn, "probe", "device is gone; releasing it",
               {{"device", it->first}});
      const std::string gone = it->first;
      it = sessions_.erase(it);
      // After the session: its threads no longer record into the series.
      stats_->ForgetDevice(gone);
    } else {
      ++it;
    }
  }
}

void ProbeEngine::Round() {
  Discover();
  for (auto it = sessions_.begin(); it != sessions_.end() && !stopping();) {
    if (!it->second->RunRound()) {
      LogEvent(spdlog::level::warn, "probe",
               "device failed fatally; reopening it next round",
               {{"device", it->first}});
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void ProbeEngine::Loop() {
  // Named so that top -H and /proc/<pid>/task show what the probe costs.
  pthread_setname_np(pthread_self(), "rnic-probe");
  const double share = cfg_.cpu_budget_percent / 100.0;
  const bool mr_on = !cfg_.mr_sizes.empty() && cfg_.mr_interval.count() > 0;
  // Rounds get what memory-registration measurements do not (cpu_pacer.h).
  const double round_share = mr_on ? share * (1 - kMrBudgetShare) : share;
  // Ten seconds' worth may be banked, so a round that runs long once (a
  // rebuild, a slow port) does not hold back the next.
  // And a round is never held back more than 30 s: on a host so slow that
  // a round costs more than that much budget, stale probe metrics would
  // be worse than a probe over its budget.
  CpuPacer pacer(round_share, round_share * 10.0, 30.0);
  RoundSchedule schedule(cfg_.interval);
  stats_->SetCpuBudget(share);
  double cpu0 = ThreadCpuSeconds();
  auto next = std::chrono::steady_clock::now();
  auto paced_at = next;
  double paced_cpu = stats_->CpuSeconds() - mr_cpu_seconds_;
  while (!stopping()) {
    Round();
    ++rounds_;
    const double cpu1 = ThreadCpuSeconds();
    stats_->AddCpuSeconds(cpu1 - cpu0);
    cpu0 = cpu1;
    // After an overlong round, start the next one right away but never
    // try to catch up with a burst.
    next += schedule.NextGap();
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    // Every probe thread's CPU (responders, event threads) since the last
    // round counts against the budget, except the separately paced MRs.
    const double all_cpu = stats_->CpuSeconds() - mr_cpu_seconds_;
    const auto wait =
        pacer.AfterRound(std::chrono::duration<double>(now - paced_at).count(),
                         all_cpu - paced_cpu);
    paced_at = now;
    paced_cpu = all_cpu;
    if (now + wait > next) {
      stats_->AddBudgetDelay(
          std::chrono::duration<double>(now + wait - next).count());
      next =
          now +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(wait);
    }
    std::unique_lock lock(wake_mu_);
    wake_.wait_until(lock, next, [this] { return stop_.load(); });
  }
  sessions_.clear();  // joins the event threads, releases every verbs object
  nl_.reset();
  nl_transport_.reset();
  stats_->AddCpuSeconds(ThreadCpuSeconds() - cpu0);
}

}  // namespace rnic::probe
