#include "collectors/fabric/fabric_collector.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "collectors/fabric/exchange_client.h"
#include "collectors/fabric/fabric_families.h"

namespace rnic {
namespace fabric {

FabricCollector::FabricCollector(std::shared_ptr<FabricStats> stats,
                                 std::unique_ptr<FabricEngine> engine,
                                 std::shared_ptr<EndpointTable> endpoints)
    : stats_(std::move(stats)),
      engine_(std::move(engine)),
      endpoints_(std::move(endpoints)) {
  if (!engine_) return;
  engine_->Start();
  if (endpoints_) {
    FabricEngine* e = engine_.get();
    endpoints_->Add("/fabric/addresses",
                    [e](const EndpointRequest&) { return e->Addresses(); });
    endpoints_->Add("/probe",
                    [e](const EndpointRequest& r) { return e->ProbeOnce(r); });
  }
}

FabricCollector::~FabricCollector() {
  if (endpoints_) {
    endpoints_->Remove("/fabric/addresses");
    endpoints_->Remove("/probe");
  }
  if (engine_) engine_->Stop();
}

Status FabricCollector::Collect(const ScrapeContext& /*ctx*/, MetricSet& out) {
  stats_->AppendTo(out);
  return Status::Ok();
}

LocalReader MakeLocalReader(std::shared_ptr<host::HostModel> model,
                            CompiledRegex devices) {
  return [model = std::move(model),
          devices = std::move(devices)]() -> std::vector<DeviceAddress> {
    // Refresh is cheap when nothing changed, and sees a device that appears
    // while nobody scrapes.
    auto snap = model->Refresh();
    std::vector<std::pair<std::string, std::string>> netdevs;
    for (const auto& d : snap->devices) {
      if (!devices.empty() && !devices.Search(d->name)) continue;
      for (const auto& p : d->ports) {
        if (!p.netdev.empty()) netdevs.emplace_back(d->name, p.netdev);
      }
    }
    return MatchInterfaces(netdevs, ReadInterfaces());
  };
}

std::set<std::string> SelfNames() {
  std::set<std::string> out;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') {
    out.insert(name);
    // The short name too: peer sets often list hosts without the domain.
    const std::string full = name;
    out.insert(full.substr(0, full.find('.')));
  }
  // Not loopback: a peer set names other hosts, and exporters of one host
  // (tests) by 127.0.0.1 with different ports.
  for (const auto& i : ReadInterfaces()) {
    if (i.ip.rfind("127.", 0) != 0 && i.ip != "::1") out.insert(i.ip);
  }
  return out;
}

}  // namespace fabric

CollectorSpec MakeFabricCollectorSpec() {
  CollectorSpec spec;
  spec.name = "fabric";
  spec.help =
      "Fabric probe: RC ping-pong (rdma_cm) between this host's RDMA devices "
      "and peers' on other hosts; RTT histograms, loss, peer_up; serves "
      "/probe and /fabric/addresses. Sends RDMA traffic and listens on an "
      "rdma_cm port, hence opt-in. Peers: the fabric: section.";
  spec.default_enabled = false;
  spec.options = {
      RegexOption(
          "devices",
          "Regex of the RDMA devices that probe and answer (unanchored; "
          "empty: every device with an IP address on its netdev)."),
      IntOption("port",
                "rdma_cm (RDMA_PS_TCP) port of the responder, and of the "
                "peers' responders unless they announce another.",
                fabric::kDefaultPort, 1, 65535),
      StringOption(
          "group",
          "This host's group (ToR, rack) in the partial mesh; empty: its "
          "first RDMA address's subnet."),
      IntOption("tos",
                "Type of service (IPv4 TOS / traffic class, DSCP << 2) of the "
                "probe connections, set with rdma_set_option "
                "RDMA_OPTION_ID_TOS; -1: the device default.",
                -1, -1, 255),
  };
  spec.families.assign(std::begin(fabric::families::kAll),
                       std::end(fabric::families::kAll));
  for (const FamilyDesc* d :
       {&fabric::families::kProbeSuccess, &fabric::families::kProbeRtt,
        &fabric::families::kProbeRttMin, &fabric::families::kProbeFailures,
        &fabric::families::kProbeDuration})
    spec.families.push_back(d);
  spec.check_config = CheckWith(fabric::ParseFabricConfig);
  spec.config_doc = fabric::FabricConfigDoc();
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    auto cfg = fabric::ParseFabricConfig(args.config);
    if (!cfg) return cfg.error();
    auto stats = std::make_shared<fabric::FabricStats>(cfg->group_by);
    std::shared_ptr<EndpointTable> endpoints =
        args.shared ? args.shared->endpoints : nullptr;
    if (!cfg->enabled) {
      LogEvent(spdlog::level::info, "fabric",
               "disabled by fabric.enabled: false", {});
      return std::unique_ptr<Collector>(
          new fabric::FabricCollector(stats, nullptr, nullptr));
    }
    // Loads the exchange's TLS files (with https) and checks the password
    // file: a mistake there stops start-up.
    auto client = fabric::ExchangeClient::Create(*cfg);
    if (!client) return client.error();
    const std::string& group = args.String("group");
    if (!group.empty() && !fabric::ValidGroup(group)) {
      return Error{
          "--collector.fabric.group: must be 1 to 128 of "
          "[A-Za-z0-9._:/-], not '" +
          group + "'"};
    }
    auto model = args.shared && args.shared->host ? args.shared->host
                                                  : MakeHostModel(args.paths);
    fabric::EngineDeps deps{
        fabric::MakeLocalReader(model, args.Regex("devices")),
        fabric::SystemResolver(), (*client)->AsHttpGet(), fabric::SelfNames,
        group};
    if (cfg->live_peers.enabled) deps.live = fabric::KernelLiveReader();
    auto engine = std::make_unique<fabric::FabricEngine>(
        *cfg, static_cast<int>(args.Int("port")),
        static_cast<int>(args.Int("tos")), stats, std::move(deps));
    return std::unique_ptr<Collector>(new fabric::FabricCollector(
        stats, std::move(engine), std::move(endpoints)));
  };
  return spec;
}

}  // namespace rnic
