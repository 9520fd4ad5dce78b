// What pod attribution adds to a resource scrape: 10k QPs of 50 processes,
// each in a Kubernetes pod (a /proc/<pid>/cgroup file of the systemd
// driver), aggregated with and without pod labels. The difference is one
// cgroup read and parse per owning process and scrape.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "collectors/netlink/resource_aggregator.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::Done;
using testing::Msg;

constexpr int kProcesses = 50;
constexpr int kQps = 10000;

std::string PodProc() {
  static const std::string dir = [] {
    const std::string d =
        std::filesystem::temp_directory_path() / "rnic_pod_bench_proc";
    for (int i = 0; i < kProcesses; ++i) {
      const std::string p = d + "/" + std::to_string(5000 + i);
      std::filesystem::create_directories(p);
      std::ofstream(p + "/comm") << "rank" << i << "\n";
      char uid[40];
      std::snprintf(uid, sizeof(uid), "%08x_b29f_11e7_9350_020968147796", i);
      std::ofstream(p + "/cgroup")
          << "0::/kubepods.slice/kubepods-burstable.slice/"
             "kubepods-burstable-pod"
          << uid << ".slice/cri-containerd-" << std::string(63, 'a')
          << static_cast<char>('0' + i % 10) << ".scope\n";
    }
    return d;
  }();
  return dir;
}

std::vector<std::uint8_t> QpDump() {
  std::vector<std::uint8_t> out;
  for (int base = 0; base < kQps; base += 128) {
    Msg m(kCmdResQpGet);
    m.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0").Begin(kAttrResQp);
    for (int i = base; i < std::min(kQps, base + 128); ++i) {
      m.Begin(kAttrResQpEntry)
          .U32(kAttrPortIndex, 1)
          .U32(kAttrResLqpn, 100 + i)
          .U8(kAttrResType, 2)
          .U8(kAttrResState, 3)
          .U32(kAttrResPid, 5000 + i % kProcesses)
          .End();
    }
    m.End();
    auto b = m.Bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  auto d = Done();
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

void BM_ResourceScrapePodLabels(benchmark::State& state) {
  const bool pods = state.range(0) != 0;
  ReplayTransport t;
  t.Set("RES_QP_GET_dump_dev0", QpDump());
  CommResolver comms(PodProc(), pods);
  LabelCache labels;  // kept across scrapes, as the collector does
  for (auto _ : state) {
    comms.Clear();
    RdmaNetlinkSource src(t);
    DumpAggregate dump(comms);
    Status st = src.DumpResources(ResKind::kQp, 0,
                                  [&](const ResEntry& e) { dump.Add(e); });
    if (!st.ok()) state.SkipWithError(st.error().message.c_str());
    ResourceAggregator agg;
    agg.Commit("mlx5_0", std::move(dump));
    MetricSet out;
    agg.Emit(out, 0, labels);
    labels.Sweep();
    benchmark::DoNotOptimize(out);
  }
}
// 0: comm alone; 1: comm, pod and container.
BENCHMARK(BM_ResourceScrapePodLabels)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rnic::nl
