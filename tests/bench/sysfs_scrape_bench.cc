// Cost of one sysfs scrape. By default the committed fixture tree; set
// RNIC_BENCH_SYSFS to a tree written by tests/fixtures/make_scaled_tree.py
// (e.g. --ports 256) for the 256-port figure. The collector alone, without
// the runner (scrape_bench.cc measures the whole scrape).
#include <benchmark/benchmark.h>
#include <prometheus/text_serializer.h>

#include <cstdlib>
#include <string>

#include "collectors/host/sysfs_parse.h"
#include "collectors/sysfs/sysfs_collector.h"

namespace {

std::string TreeRoot() {
  if (const char* env = std::getenv("RNIC_BENCH_SYSFS"); env && *env) {
    return env;
  }
  return std::string(RNIC_FIXTURES_DIR) + "/sys";
}

void BM_SysfsCollect(benchmark::State& state) {
  rnic::sysfs::SysfsCollector c(TreeRoot(), {});
  std::size_t series = 0;
  for (auto _ : state) {
    rnic::MetricSet out;
    if (!c.Collect(rnic::ScrapeContext{}, out).ok()) {
      state.SkipWithError("collect failed");
      break;
    }
    series = out.SeriesCount();
    auto fams = std::move(out).Take();
    benchmark::DoNotOptimize(fams);
  }
  state.counters["series"] = static_cast<double>(series);
  state.counters["series_rate"] =
      benchmark::Counter(static_cast<double>(series),
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SysfsCollect)->Unit(benchmark::kMillisecond);

// Collect plus text exposition, to compare with a node_exporter scrape.
void BM_SysfsCollectAndSerialize(benchmark::State& state) {
  rnic::sysfs::SysfsCollector c(TreeRoot(), {});
  prometheus::TextSerializer ser;
  std::size_t bytes = 0;
  for (auto _ : state) {
    rnic::MetricSet out;
    if (!c.Collect(rnic::ScrapeContext{}, out).ok()) {
      state.SkipWithError("collect failed");
      break;
    }
    const auto fams = std::move(out).Take();
    const std::string text = ser.Serialize(fams);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_SysfsCollectAndSerialize)->Unit(benchmark::kMillisecond);

void BM_ParseCounterValue(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        rnic::sysfs::ParseCounterValue("19478234712853\n"));
  }
}
BENCHMARK(BM_ParseCounterValue);

void BM_ParseRate(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        rnic::sysfs::ParseRateBytesPerSecond("100 Gb/sec (4X EDR)\n"));
  }
}
BENCHMARK(BM_ParseRate);

}  // namespace
