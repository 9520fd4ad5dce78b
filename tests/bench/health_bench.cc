// pcie, carrier and expect collectors: one scrape each of the health fixture
// tree (4 RDMA devices: mlx5 PF and VF, hfi1, irdma; 3 netdevs), on a host
// model refreshed once, as the runner shares it between collectors. The
// figures are the per-scrape cost README states.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "collectors/health/carrier_collector.h"
#include "collectors/health/expect_collector.h"
#include "collectors/health/pcie_collector.h"

namespace {

const std::string kRoot = RNIC_FIXTURES_DIR "/health";

std::shared_ptr<rnic::host::HostModel> Model() {
  auto m = std::make_shared<rnic::host::HostModel>(
      rnic::host::HostModel::Options{kRoot + "/sys"});
  (void)m->Refresh();
  return m;
}

void Run(benchmark::State& state, rnic::Collector& c) {
  const rnic::ScrapeContext ctx{std::chrono::steady_clock::now() +
                                std::chrono::hours(24)};
  for (auto _ : state) {
    rnic::MetricSet out;
    benchmark::DoNotOptimize(c.Collect(ctx, out).ok());
    benchmark::DoNotOptimize(out.SeriesCount());
  }
}

void BM_PcieScrape(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  auto c = rnic::MakePcieCollector(kRoot + "/sys", Model());
  Run(state, *c);
}
BENCHMARK(BM_PcieScrape)->Unit(benchmark::kMicrosecond);

void BM_CarrierScrape(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  auto c = rnic::MakeCarrierCollector(kRoot + "/sys", Model());
  Run(state, *c);
}
BENCHMARK(BM_CarrierScrape)->Unit(benchmark::kMicrosecond);

// Every check on every device (the DCB facts replayed from files).
void BM_ExpectScrapeAllChecks(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  auto entries = rnic::expect::ParseExpectConfig(YAML::Load(
      "- {device: ., active_ports: 1, link_layer: Ethernet, rate_gbps: 100, "
      "mtu: 9000, pfc_priorities: [3], trust: dscp, ecn_priority: 3, "
      "numa_local_irqs: true, firmware: 22.36.1010}"));
  rnic::ExpectSources src;
  src.sysfs = kRoot + "/sys";
  src.procfs = kRoot + "/proc";
  src.dcb = rnic::MakeFixtureDcbSource(kRoot + "/dcb");
  auto c = rnic::MakeExpectCollector(std::move(src), std::move(entries).value(),
                                     Model());
  Run(state, *c);
}
BENCHMARK(BM_ExpectScrapeAllChecks)->Unit(benchmark::kMicrosecond);

}  // namespace
