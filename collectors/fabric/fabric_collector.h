// Collector `fabric` (default disabled: it sends RDMA traffic to other hosts
// and listens on an rdma_cm port; enable with --collector.fabric). It runs
// the FabricEngine (initiator and responder), serves /fabric/addresses and
// /probe through the shared endpoint table, and at scrape time snapshots
// what the engine accumulated.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "collectors/collector.h"
#include "collectors/collector_spec.h"
#include "collectors/fabric/fabric_engine.h"
#include "collectors/fabric/fabric_stats.h"
#include "collectors/http_endpoints.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeFabricCollectorSpec();

namespace fabric {

class FabricCollector : public Collector {
 public:
  FabricCollector(std::shared_ptr<FabricStats> stats,
                  std::unique_ptr<FabricEngine> engine,
                  std::shared_ptr<EndpointTable> endpoints);
  ~FabricCollector() override;
  [[nodiscard]] Status Collect(const ScrapeContext& ctx,
                               MetricSet& out) override;

 private:
  std::shared_ptr<FabricStats> stats_;
  std::unique_ptr<FabricEngine> engine_;
  std::shared_ptr<EndpointTable> endpoints_;
};

// The local addresses of the devices `devices` selects (empty: all), from
// the host model's netdevs and getifaddrs().
[[nodiscard]] LocalReader MakeLocalReader(
    std::shared_ptr<host::HostModel> model, CompiledRegex devices);
// The names this host may have in a peer set: its host name (and short
// name) and every interface address.
[[nodiscard]] std::set<std::string> SelfNames();

}  // namespace fabric
}  // namespace rnic
