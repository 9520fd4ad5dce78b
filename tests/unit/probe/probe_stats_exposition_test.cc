// Everything the probe exports for one scripted history, serialized by the
// exporter's own serializer and compared with a file written by the code
// before the probe moved onto prometheus-cpp instruments: names, HELP,
// label names and their order, bucket bounds and values stay the same.
// Families are compared in name order and series in label order (neither
// order is part of the format).
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "collectors/probe/probe_stats.h"
#include "exporter/exposition.h"

namespace rnic::probe {
namespace {

void Script(ProbeStats& s) {
  const std::vector<double> a = {0.1e-6, 0.5e-6, 2e-6, 3.3e-6, 40e-6, 0.2};
  const std::vector<double> b = {1e-3, 0.1, 0.2, 0.3e-6};
  s.RecordLatencies("mlx5_0", 1, Operation::kWrite, 64, a);
  s.RecordLatencies("mlx5_0", 1, Operation::kWrite, 64, b);
  s.RecordLatencies("mlx5_0", 1, Operation::kRead, 4096, b);
  s.RecordLatencies("mlx5_0", 2, Operation::kAtomicFetchAdd, 8, a);
  s.RecordTimeout("mlx5_0", 2, Operation::kSend, 4096);  // no samples
  s.RecordTimeout("mlx5_0", 1, Operation::kWrite, 64);
  s.RecordCompletionError("mlx5_0", 1, Operation::kSend,
                          WcStatusName(IBV_WC_RETRY_EXC_ERR));
  s.RecordCompletionError("mlx5_0", 1, Operation::kSend,
                          WcStatusName(IBV_WC_RETRY_EXC_ERR));
  s.RecordCompletionError("mlx5_0", 1, Operation::kWrite,
                          WcStatusName(IBV_WC_RNR_RETRY_EXC_ERR));
  s.RecordCompletionError("mlx5_0", 2, Operation::kRead,
                          WcStatusName(IBV_WC_REM_ACCESS_ERR));
  s.RecordRound("mlx5_0", 1, true);
  s.RecordRound("mlx5_0", 1, false);
  s.RecordRound("mlx5_0", 2, true);
  s.RecordRebuild("mlx5_0", 1);
  s.SetOperationSupported("mlx5_0", 1, Operation::kWrite, true);
  s.SetOperationSupported("rxe0", 1, Operation::kAtomicCmpSwap, false);
  s.RecordMr("mlx5_0", 4096, 20e-6, 0.1);
  s.RecordMr("mlx5_0", 4096, 0.2, 3e-6);
  s.RecordMr("mlx5_0", 1u << 20, 11.0, 0.5e-3);
  s.RecordAsyncEvent("rxe0", 1, "port_err");
  s.RecordAsyncEvent("rxe0", 1, "port_err");
  s.RecordAsyncEvent("rxe0", 1, "cq_err");
  s.RecordAsyncEvent("rxe0", 0, "device_fatal");
  s.AddCpuSeconds(0.1);
  s.AddCpuSeconds(0.2);
  s.SetCpuBudget(0.01);
  s.AddBudgetDelay(1.5);
  s.AddBudgetDelay(0.25);
  s.SetQpCounterBound("mlx5_0", 1, true);
  s.SetQpCounterValues("mlx5_0", 1,
                       {{"rx_read_requests", 7}, {"local_ack_timeout_err", 0}});
  s.SetQpCounterValues("mlx5_0", 1,
                       {{"rx_read_requests", 9}, {"local_ack_timeout_err", 2}});
  s.SetQpCounterBound("rxe0", 1, false);
}

std::string Render(const ProbeStats& s) {
  MetricSet set;
  s.AppendTo(set);
  auto families = std::move(set).Take();
  std::sort(families.begin(), families.end(),
            [](const auto& x, const auto& y) { return x.name < y.name; });
  for (auto& f : families) {
    std::sort(
        f.metric.begin(), f.metric.end(), [](const auto& x, const auto& y) {
          return std::lexicographical_compare(
              x.label.begin(), x.label.end(), y.label.begin(), y.label.end(),
              [](const auto& l, const auto& r) {
                return std::tie(l.name, l.value) < std::tie(r.name, r.value);
              });
        });
  }
  std::string out;
  Serialize(families, ExpositionFormat::kText004, out);
  return out;
}

TEST(ProbeStatsExpositionTest, SameTextAsBeforePrometheusCpp) {
  ProbeStats s;
  Script(s);
  const std::string got = Render(s);
  const std::string path =
      std::string(RNIC_FIXTURES_DIR) + "/probe/probe_stats.prom";
  if (std::getenv("RNIC_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str());
}

}  // namespace
}  // namespace rnic::probe
