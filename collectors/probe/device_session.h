// One opened device: its ibv_context, the async-event thread that counts
// every ibv_async_event of that context, and the probed ports. Lives until
// the device disappears or reports DEVICE_FATAL; then the engine destroys it
// and opens a fresh one when the device is back.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "collectors/common/result.h"
#include "collectors/probe/port_probe.h"

namespace rnic::probe {

class ProbeEngine;

class DeviceSession {
 public:
  [[nodiscard]] static Result<std::unique_ptr<DeviceSession>> Open(
      ibv_device* dev, ProbeEngine& engine);
  ~DeviceSession();
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  // Probes every selected port once. Returns false if the device is dead
  // (DEVICE_FATAL or a query that says it is gone): the engine drops it.
  [[nodiscard]] bool RunRound();
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  struct PortSlot {
    std::unique_ptr<PortProbe> probe;
    std::uint32_t counter_id = 0;  // 0: QPs not bound to a counter
  };

  DeviceSession(ProbeEngine& engine, std::string name);
  void EventLoop();
  void ProbePort(int port);
  void Teardown(int port, PortSlot& slot);
  [[nodiscard]] bool Build(int port, PortSlot& slot);
  void BindCounter(int port, PortSlot& slot);
  void MeasureMr();  // when due; paced by its share of the CPU budget
  void MeasureMrSizes();
  void Problem(int port, const std::string& what);  // logs on change

  ProbeEngine& engine_;
  std::string name_;
  int dev_index_ = -1;
  ibv_context* ctx_ = nullptr;
  ibv_device_attr attr_{};
  ibv_pd* mr_pd_ = nullptr;
  std::map<int, PortSlot> ports_;
  std::chrono::steady_clock::time_point next_mr_{};

  std::thread events_;
  std::atomic<bool> stop_events_{false};
  std::mutex flags_mu_;
  std::set<int> dirty_ports_;  // rebuild before the next round
  bool fatal_ = false;
};

}  // namespace rnic::probe
