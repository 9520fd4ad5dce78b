// roce collector: one scrape of the fixture tree (mlx5 PF with a 276-entry
// ethtool table, VF, Soft-RoCE) and the exact-name classification of that
// table, which runs only when a netdev's string table changes.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "collectors/roce/ethtool_names.h"
#include "collectors/roce/roce_collector.h"

namespace {

const std::string kRoot = RNIC_FIXTURES_DIR "/roce";

void BM_RoceScrapeFixtureTree(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  rnic::RoceSources src;
  src.sysfs = kRoot + "/sys";
  src.procfs = kRoot + "/proc";
  src.ethtool = rnic::MakeFixtureEthtoolStats(kRoot + "/ethtool");
  src.dcb = rnic::MakeFixtureDcbSource(kRoot + "/dcb");
  auto c = rnic::MakeRoceCollector(std::move(src));
  const rnic::ScrapeContext ctx{std::chrono::steady_clock::now() +
                                std::chrono::hours(24)};
  for (auto _ : state) {
    rnic::MetricSet out;
    benchmark::DoNotOptimize(c->Collect(ctx, out).ok());
    benchmark::DoNotOptimize(out.SeriesCount());
  }
}
BENCHMARK(BM_RoceScrapeFixtureTree)->Unit(benchmark::kMicrosecond);

void BM_ClassifyMlx5Table(benchmark::State& state) {
  std::ifstream in(kRoot + "/ethtool/enp129s0f0np0");
  std::stringstream ss;
  ss << in.rdbuf();
  auto snap = rnic::ParseEthtoolSOutput(ss.str());
  for (auto _ : state) {
    int n = 0;
    for (const auto& name : *snap->names) {
      n += rnic::ClassifyEthtoolName(name).has_value();
    }
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_ClassifyMlx5Table)->Unit(benchmark::kMicrosecond);

}  // namespace
