// The fabric probe's responder: an rdma_cm listener on each selected
// device's addresses (RDMA_PS_TCP, fabric port), answering the initiators
// of the peer set. At CONNECT_REQUEST it checks the source address against
// the allowed set, the connection cap and the private data, and refuses
// (rdma_reject) and counts anything else. An accepted connection gets its
// own PD, CQ and an MR of 2 x the initiator's max size with only the rights
// its operations need. One thread serves every listener and connection.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "collectors/common/log_once.h"
#include "collectors/fabric/addresses.h"
#include "collectors/fabric/fabric_stats.h"
#include "collectors/fabric/private_data.h"

struct rdma_event_channel;
struct rdma_cm_id;

namespace rnic::fabric {

// What the responder does with a CONNECT_REQUEST: accept (with the parsed
// hello) or refuse for `reason`, the label value of
// rnic_fabric_responder_refused_total. `open_connections` and
// `max_connections` count the connections of the device asked.
struct Admission {
  bool accept = false;
  std::string reason;
  Hello hello;
};
[[nodiscard]] Admission Admit(bool source_allowed, int open_connections,
                              int max_connections,
                              std::span<const std::uint8_t> private_data);

class Responder {
 public:
  // `max_connections`: per device. `tos`, `ack_timeout`: for the answers, as
  // the initiator sets them for its requests (-1: defaults).
  Responder(int port, int max_connections, int tos, int ack_timeout,
            std::shared_ptr<FabricStats> stats);
  ~Responder();
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  void Start();
  void Stop();
  // The addresses to listen on (re-bound on the responder thread when they
  // change) and the source addresses allowed to connect.
  void SetAddresses(const std::vector<DeviceAddress>& addresses);
  void SetAllowed(std::set<std::string> source_ips);
  // Per device, the connections it may hold below max_connections (a
  // partial mesh: the bound less the device's own outgoing ones); devices
  // not given keep max_connections.
  void SetLimits(std::map<std::string, int> per_device);

 private:
  struct Conn;
  void Loop();
  void Rebind();
  void OnConnectRequest(rdma_cm_id* id, rdma_cm_id* listen_id,
                        const std::vector<std::uint8_t>& data);
  void Close(rdma_cm_id* id);
  void Serve(Conn& c);
  [[nodiscard]] bool Allowed(const std::string& ip) const;
  [[nodiscard]] int Limit(const std::string& device) const;

  int port_;
  int max_connections_;
  int tos_;
  int ack_timeout_;
  std::shared_ptr<FabricStats> stats_;
  rdma_event_channel* channel_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  mutable std::mutex mu_;  // guards wanted_, allowed_ and limits_
  std::vector<DeviceAddress> wanted_;
  bool rebind_ = false;
  std::set<std::string> allowed_;
  std::map<std::string, int> limits_;

  // Responder thread only.
  std::map<std::string, std::pair<std::string, rdma_cm_id*>> listeners_;
  std::map<rdma_cm_id*, std::unique_ptr<Conn>> conns_;
  std::map<rdma_cm_id*, std::string> listener_device_;
  LogOnce log_{"fabric"};
};

}  // namespace rnic::fabric
