// Whole-scrape benchmarks: collectors through the real CollectorRunner, then
// serialization, on the fixture tree and on synthetic trees of 1..256 ports.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "collectors/collector_spec.h"
#include "exporter/exposition.h"
#include "exporter/registry.h"

namespace rnic {
namespace {

std::unique_ptr<CollectorRunner> MakeRunner(const std::string& collector,
                                            const std::string& sysfs) {
  for (const auto& spec : AllCollectors()) {
    if (spec.name != collector) continue;
    CollectorArgs args;
    args.paths.sysfs = sysfs;
    args.options = spec.ParseOptions().value();
    args.shared = std::make_shared<SharedFacts>();
    auto c = spec.factory(args);
    if (!c.ok()) return nullptr;
    std::vector<CollectorRunner::Entry> e;
    e.push_back({spec.name, std::move(c).value()});
    return std::make_unique<CollectorRunner>(std::move(e));
  }
  return nullptr;
}

// Writes (once) a synthetic tree of `ports` mlx5-like ports, 8 per device.
std::string ScaledTree(int ports) {
  std::string dir = "/tmp/rnic_bench_tree_" + std::to_string(ports);
  if (!std::filesystem::exists(dir + "/class/infiniband")) {
    std::string cmd = "python3 " RNIC_FIXTURES_DIR "/make_scaled_tree.py --out " + dir +
                      " --ports " + std::to_string(ports) + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) return "";
  }
  return dir;
}

void RunScrape(benchmark::State& state, const std::string& sysfs) {
  auto runner = MakeRunner("sysfs", sysfs);
  if (!runner) {
    state.SkipWithError("sysfs collector not available");
    return;
  }
  std::size_t series = 0;
  std::string body;
  // The first scrape opens every file and builds the per-port caches: a
  // one-time cost, not the steady state measured here.
  (void)runner->Gather(std::chrono::steady_clock::now() + std::chrono::seconds(60));
  for (auto _ : state) {
    MetricSet set = runner->Gather(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    series = set.SeriesCount();
    body.clear();
    Serialize(set, ExpositionFormat::kText004, body);
    benchmark::DoNotOptimize(body.data());
  }
  state.counters["series"] = static_cast<double>(series);
  state.counters["bytes"] = static_cast<double>(body.size());
  state.counters["ns_per_series"] = benchmark::Counter(
      static_cast<double>(series), benchmark::Counter::kIsIterationInvariantRate |
                                       benchmark::Counter::kInvert);
}

void BM_ScrapeFixtureTree(benchmark::State& state) {
  RunScrape(state, RNIC_FIXTURES_DIR "/sys");
}
// Collectors run on the runner's threads: measure the whole process's CPU.
BENCHMARK(BM_ScrapeFixtureTree)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime();

void BM_ScrapeScaledTree(benchmark::State& state) {
  std::string dir = ScaledTree(static_cast<int>(state.range(0)));
  if (dir.empty()) {
    state.SkipWithError("cannot generate tree");
    return;
  }
  RunScrape(state, dir);
}
BENCHMARK(BM_ScrapeScaledTree)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

void BM_SerializeText(benchmark::State& state) {
  MetricSet set;
  for (int p = 0; p < state.range(0); ++p) {
    for (int c = 0; c < 40; ++c) {
      set.AddCounter("rnic_hw_counter" + std::to_string(c) + "_total", "help",
                     {{"device", "mlx5_" + std::to_string(p / 2)}, {"port", std::to_string(p % 2 + 1)}},
                     123456789.0 * c);
    }
  }
  std::string out;
  for (auto _ : state) {
    out.clear();
    Serialize(set, ExpositionFormat::kText004, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["series"] = 40.0 * static_cast<double>(state.range(0));
}
BENCHMARK(BM_SerializeText)->Arg(1)->Arg(256)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rnic
