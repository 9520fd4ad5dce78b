#include "collectors/probe/probe_stats.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <cmath>
#include <vector>

namespace rnic::probe {
namespace {

const prometheus::MetricFamily* Find(const MetricSet& s,
                                     const std::string& name) {
  for (const auto& f : s.families()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const prometheus::ClientMetric* FindMetric(
    const prometheus::MetricFamily& f,
    std::initializer_list<std::pair<const char*, const char*>> labels) {
  for (const auto& m : f.metric) {
    bool all = true;
    for (const auto& [k, v] : labels) all = all && LabelValue(m, k) == v;
    if (all) return &m;
  }
  return nullptr;
}

TEST(SnakeCaseTest, DerivesLabelValuesFromVerbsStrings) {
  EXPECT_EQ(SnakeCase("transport retry counter exceeded"),
            "transport_retry_counter_exceeded");
  EXPECT_EQ(SnakeCase("Work Request Flushed Error"),
            "work_request_flushed_error");
  EXPECT_EQ(SnakeCase("  --  "), "unknown");
  EXPECT_EQ(WcStatusName(IBV_WC_RNR_RETRY_EXC_ERR),
            SnakeCase(ibv_wc_status_str(IBV_WC_RNR_RETRY_EXC_ERR)));
  EXPECT_EQ(AsyncEventName(IBV_EVENT_CQ_ERR), "cq_err");
  EXPECT_EQ(AsyncEventName(IBV_EVENT_DEVICE_FATAL), "device_fatal");
  EXPECT_EQ(AsyncEventName(999), "unknown_999");
  EXPECT_TRUE(IsPortEvent(IBV_EVENT_PORT_ERR));
  EXPECT_FALSE(IsPortEvent(IBV_EVENT_QP_FATAL));
}

TEST(ProbeStatsTest, LatencyBatchesAccumulateIntoOneHistogram) {
  ProbeStats s;
  const std::vector<double> a = {2e-6, 4e-6, 40e-6};
  const std::vector<double> b = {1e-3};
  s.RecordLatencies("mlx5_0", 1, Operation::kWrite, 64, a);
  s.RecordLatencies("mlx5_0", 1, Operation::kWrite, 64, b);
  s.RecordLatencies("mlx5_0", 1, Operation::kRead, 64, a);
  auto h = s.LatencyHistogram("mlx5_0", 1, Operation::kWrite, 64);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->sample_count, 4u);
  EXPECT_NEAR(h->sample_sum, 2e-6 + 4e-6 + 40e-6 + 1e-3, 1e-12);
  EXPECT_EQ(s.TotalIterations(), 7u);

  MetricSet out;
  s.AppendTo(out);
  const auto* lat = Find(out, "rnic_probe_latency_seconds");
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->type, prometheus::MetricType::Histogram);
  ASSERT_EQ(lat->metric.size(), 2u);
  const auto* w = FindMetric(*lat, {{"operation", "write"}});
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(LabelValue(*w, "size_bytes"), "64");
  EXPECT_EQ(LabelValue(*w, "port"), "1");
  EXPECT_EQ(w->histogram.sample_count, 4u);
  // 2 us lands in le=2e-06, so that bucket holds exactly one sample.
  for (const auto& bucket : w->histogram.bucket) {
    if (bucket.upper_bound == 2e-6) {
      EXPECT_EQ(bucket.cumulative_count, 1u);
    }
    if (bucket.upper_bound == 5e-6) {
      EXPECT_EQ(bucket.cumulative_count, 2u);
    }
  }
  const auto* it = Find(out, "rnic_probe_iterations_total");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(FindMetric(*it, {{"operation", "write"}})->counter.value, 4);
}

TEST(ProbeStatsTest, BucketsAreInclusiveUpperBounds) {
  ProbeStats s;
  const std::vector<double> v = {0.25e-6, 0.5e-6, 0.6e-6, 100e-3, 0.5};
  s.RecordLatencies("rxe0", 1, Operation::kSend, 64, v);
  auto h = s.LatencyHistogram("rxe0", 1, Operation::kSend, 64);
  ASSERT_TRUE(h.has_value());
  ASSERT_EQ(h->bucket.size(), LatencyBuckets().size() + 1);  // and +Inf
  EXPECT_EQ(h->bucket.front().upper_bound, 0.5e-6);
  EXPECT_EQ(h->bucket.front().cumulative_count, 2u);  // le="5e-07" holds 0.5us
  EXPECT_EQ(h->bucket[1].cumulative_count, 3u);
  EXPECT_EQ(h->bucket[h->bucket.size() - 2].cumulative_count, 4u);  // 100 ms
  EXPECT_TRUE(std::isinf(h->bucket.back().upper_bound));
  EXPECT_EQ(h->bucket.back().cumulative_count, 5u);
  EXPECT_EQ(h->sample_count, 5u);
  // A timeout alone makes the series known, with no latency samples.
  s.RecordTimeout("rxe0", 1, Operation::kRead, 64);
  auto empty = s.LatencyHistogram("rxe0", 1, Operation::kRead, 64);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->sample_count, 0u);
  EXPECT_FALSE(s.LatencyHistogram("rxe0", 2, Operation::kRead, 64));
}

TEST(ProbeStatsTest, LatencyBucketsSpanHalfMicrosecondTo100ms) {
  const auto& b = LatencyBuckets();
  EXPECT_DOUBLE_EQ(b.front(), 0.5e-6);
  EXPECT_DOUBLE_EQ(b.back(), 100e-3);
  EXPECT_GE(b.size(), 30u);
  EXPECT_LE(b.size(), 36u);
  for (std::size_t i = 1; i < b.size(); ++i) {
    EXPECT_LT(b[i - 1], b[i]);
    // Log-spaced and fine enough for a quantile within about a quarter: no
    // step more than 1.7x, none under 1.3x.
    EXPECT_LE(b[i] / b[i - 1], 1.7);
    EXPECT_GE(b[i] / b[i - 1], 1.3);
  }
}

TEST(ProbeStatsTest, MrBucketsCoverSecondsOfPinning) {
  const auto& b = MrBuckets();
  EXPECT_LE(b.front(), 1e-6);
  EXPECT_GE(b.back(), 10.0);
  for (std::size_t i = 1; i < b.size(); ++i) EXPECT_LT(b[i - 1], b[i]);
}

TEST(ProbeStatsTest, ErrorsRoundsAndRetryCounters) {
  ProbeStats s;
  s.RecordRound("rxe0", 1, true);
  s.RecordRound("rxe0", 1, false);
  s.RecordTimeout("rxe0", 1, Operation::kSend, 4096);
  s.RecordCompletionError("rxe0", 1, Operation::kSend,
                          WcStatusName(IBV_WC_RETRY_EXC_ERR));
  s.RecordCompletionError("rxe0", 1, Operation::kWrite,
                          WcStatusName(IBV_WC_RETRY_EXC_ERR));
  s.RecordCompletionError("rxe0", 1, Operation::kWrite,
                          WcStatusName(IBV_WC_REM_ACCESS_ERR));
  EXPECT_EQ(s.Rounds("rxe0", 1, true), 1u);
  EXPECT_EQ(s.Rounds("rxe0", 1, false), 1u);
  MetricSet out;
  s.AppendTo(out);
  const auto* ok = Find(out, "rnic_probe_success");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->metric.at(0).gauge.value, 0);  // the last round failed
  const auto* retry = Find(out, "rnic_probe_retry_exceeded_total");
  ASSERT_NE(retry, nullptr);
  EXPECT_EQ(retry->metric.at(0).counter.value, 2);
  const auto* rnr = Find(out, "rnic_probe_rnr_retry_exceeded_total");
  ASSERT_NE(rnr, nullptr);
  EXPECT_EQ(rnr->metric.at(0).counter.value, 0);  // present before it happens
  const auto* err = Find(out, "rnic_probe_completion_errors_total");
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->metric.size(), 3u);
  const auto* to = Find(out, "rnic_probe_timeouts_total");
  ASSERT_NE(to, nullptr);
  EXPECT_EQ(FindMetric(*to, {{"size_bytes", "4096"}})->counter.value, 1);
}

TEST(ProbeStatsTest, AsyncEventsLabelPortOnlyForPortEvents) {
  ProbeStats s;
  s.RecordAsyncEvent("rxe1", 1, "port_err");
  s.RecordAsyncEvent("rxe1", 1, "port_err");
  s.RecordAsyncEvent("rxe1", 0, "device_fatal");
  EXPECT_EQ(s.AsyncEvents("rxe1", 1, "port_err"), 2u);
  MetricSet out;
  s.AppendTo(out);
  const auto* ev = Find(out, "rnic_async_events_total");
  ASSERT_NE(ev, nullptr);
  const auto* fatal = FindMetric(*ev, {{"event", "device_fatal"}});
  ASSERT_NE(fatal, nullptr);
  for (const auto& l : fatal->label) EXPECT_NE(l.name, "port");
  EXPECT_EQ(
      FindMetric(*ev, {{"event", "port_err"}, {"port", "1"}})->counter.value,
      2);
}

TEST(ProbeStatsTest, CpuMrAndQpCounters) {
  ProbeStats s;
  s.AddCpuSeconds(0.25);
  s.AddCpuSeconds(0.5);
  EXPECT_DOUBLE_EQ(s.CpuSeconds(), 0.75);
  s.RecordMr("mlx5_0", 4096, 20e-6, 10e-6);
  s.SetQpCounterBound("mlx5_0", 1, true);
  s.SetQpCounterValues("mlx5_0", 1, {{"rx_read_requests", 7}});
  s.SetQpCounterBound("rxe0", 1, false);
  MetricSet out;
  s.AppendTo(out);
  ASSERT_NE(Find(out, "rnic_probe_mr_registration_seconds"), nullptr);
  ASSERT_NE(Find(out, "rnic_probe_mr_deregistration_seconds"), nullptr);
  const auto* q = Find(out, "rnic_probe_qp_rx_read_requests_total");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->metric.at(0).counter.value, 7);
  const auto* bound = Find(out, "rnic_probe_qp_stat_bound");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(FindMetric(*bound, {{"device", "rxe0"}})->gauge.value, 0);
  EXPECT_EQ(FindMetric(*bound, {{"device", "mlx5_0"}})->gauge.value, 1);
  EXPECT_EQ(
      Find(out, "rnic_probe_cpu_seconds_total")->metric.at(0).counter.value,
      0.75);
}

// Every kind of per-device series, for one device.
void RecordEverything(ProbeStats& s, const std::string& dev) {
  const std::vector<double> lat = {2e-6, 3e-6};
  s.RecordLatencies(dev, 1, Operation::kWrite, 64, lat);
  s.RecordTimeout(dev, 1, Operation::kSend, 64);
  s.RecordCompletionError(dev, 1, Operation::kRead, "retry_exceeded");
  s.RecordRound(dev, 1, true);
  s.RecordRebuild(dev, 1);
  s.SetOperationSupported(dev, 1, Operation::kRead, true);
  s.RecordMr(dev, 4096, 20e-6, 10e-6);
  s.RecordAsyncEvent(dev, 0, "device_fatal");
  s.RecordAsyncEvent(dev, 1, "port_err");
  s.SetQpCounterBound(dev, 1, true);
  s.SetQpCounterValues(dev, 1, {{"rx_read_requests", 7}});
}

std::size_t SeriesOf(const MetricSet& out, const std::string& dev) {
  std::size_t n = 0;
  for (const auto& f : out.families()) {
    for (const auto& m : f.metric) n += LabelValue(m, "device") == dev;
  }
  return n;
}

TEST(ProbeStatsTest, ForgetDeviceDropsEverySeriesOfThatDeviceOnly) {
  ProbeStats s;
  RecordEverything(s, "rxe0");
  RecordEverything(s, "rxe1");
  MetricSet before;
  s.AppendTo(before);
  const std::size_t per_device = SeriesOf(before, "rxe1");
  ASSERT_GT(per_device, 15U);
  ASSERT_EQ(SeriesOf(before, "rxe0"), per_device);

  s.ForgetDevice("rxe1");
  MetricSet after;
  s.AppendTo(after);
  EXPECT_EQ(SeriesOf(after, "rxe1"), 0U);
  EXPECT_EQ(SeriesOf(after, "rxe0"), per_device);
  EXPECT_EQ(s.Rounds("rxe0", 1, true), 1U);

  // A device that comes back under the name starts its series afresh.
  RecordEverything(s, "rxe1");
  MetricSet again;
  s.AppendTo(again);
  EXPECT_EQ(SeriesOf(again, "rxe1"), per_device);
  EXPECT_EQ(s.Rounds("rxe1", 1, true), 1U);
  EXPECT_EQ(s.AsyncEvents("rxe1", 1, "port_err"), 1U);
}

}  // namespace
}  // namespace rnic::probe
