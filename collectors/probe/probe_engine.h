// The probe's background machinery: one engine thread that runs rounds at
// the configured interval (smokeping_prober style) over every active port
// of every selected device, plus one async-event thread per opened device
// context. Results go into a shared ProbeStats. Destruction stops and joins
// every thread and releases every verbs object.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "collectors/common/log_once.h"
#include "collectors/nl/rdma_source.h"
#include "collectors/nl/transport.h"
#include "collectors/probe/port_probe.h"
#include "collectors/probe/probe_config.h"
#include "collectors/probe/probe_stats.h"
#include "collectors/probe/qp_counter.h"

namespace rnic::probe {

class DeviceSession;

// Called on the engine thread after each build of a port's probe pair. The
// daemon sets none; a test build uses it to provoke faults on the probe's
// own device context (tests/tools/probe_test_hooks).
using PortBuiltHook =
    std::function<void(const std::string& device, int port, PortProbe& probe)>;

class ProbeEngine {
 public:
  ProbeEngine(ProbeConfig cfg, std::shared_ptr<ProbeStats> stats,
              PortBuiltHook port_built = nullptr);
  ~ProbeEngine();
  ProbeEngine(const ProbeEngine&) = delete;
  ProbeEngine& operator=(const ProbeEngine&) = delete;

  void Start();
  void Stop();
  // Rounds finished since Start (all devices, one per interval).
  [[nodiscard]] std::uint64_t rounds() const { return rounds_.load(); }
  [[nodiscard]] const ProbeStats& stats() const { return *stats_; }

 private:
  friend class DeviceSession;
  struct PortMemory {  // what must outlive a device session
    MonotonicCounters counters;
    bool counter_unsupported = false;
    bool rc_unsupported = false;
    bool built_before = false;
    std::string last_problem;
  };

  void Loop();
  void Round();
  void Discover();
  [[nodiscard]] bool stopping() const { return stop_.load(); }

  ProbeConfig cfg_;
  std::shared_ptr<ProbeStats> stats_;
  PortBuiltHook port_built_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex wake_mu_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> rounds_{0};
  // Touched by the engine thread only.
  std::map<std::string, std::unique_ptr<DeviceSession>> sessions_;
  std::map<std::pair<std::string, int>, PortMemory> memory_;
  LogOnce log_{"probe"};  // persistent conditions, logged when they change
  // RDMA netlink for the probe's counter binding, opened on first use.
  std::unique_ptr<nl::NetlinkTransport> nl_transport_;
  std::unique_ptr<nl::RdmaNetlinkSource> nl_;
  // CPU of memory-registration measurements, paced apart from the rounds.
  double mr_cpu_seconds_ = 0;
  bool nl_failed_ = false;
};

}  // namespace rnic::probe
