#include "exporter/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "tests/unit/common/captured_log.h"

namespace rnic {
namespace {

class FixedCollector : public Collector {
 public:
  FixedCollector(double value, std::chrono::milliseconds sleep,
                 bool fail = false)
      : value_(value), sleep_(sleep), fail_(fail) {}
  Status Collect(const ScrapeContext&, MetricSet& out) override {
    std::this_thread::sleep_for(sleep_);
    out.AddGauge("rnic_test_value", "v", {{"v", std::to_string(value_)}},
                 value_);
    if (fail_) return Error{"boom"};
    return Status::Ok();
  }

 private:
  double value_;
  std::chrono::milliseconds sleep_;
  bool fail_;
};

double Gauge(const MetricSet& set, const std::string& family,
             const std::string& collector) {
  for (const auto& f : set.families()) {
    if (f.name != family) continue;
    for (const auto& m : f.metric) {
      if (LabelValue(m, "collector") == collector) return m.gauge.value;
    }
  }
  return -1;
}

std::size_t Samples(const MetricSet& set, const std::string& family) {
  for (const auto& f : set.families()) {
    if (f.name == family) return f.metric.size();
  }
  return 0;
}

TEST(CollectorRunnerTest, SlowCollectorFailsOthersServed) {
  std::vector<CollectorRunner::Entry> e;
  e.push_back({"fast", std::make_unique<FixedCollector>(
                           1, std::chrono::milliseconds(0))});
  e.push_back({"slow", std::make_unique<FixedCollector>(
                           2, std::chrono::milliseconds(1500))});
  CollectorRunner runner(std::move(e));
  MetricSet set = runner.Gather(std::chrono::steady_clock::now() +
                                std::chrono::milliseconds(200));
  EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "fast"), 1);
  EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "slow"), 0);
  // Only the fast collector's sample is served.
  EXPECT_EQ(Samples(set, "rnic_test_value"), 1u);
  EXPECT_GE(Gauge(set, "rnic_scrape_collector_duration_seconds", "slow"), 0.1);
  runner.Drain(std::chrono::seconds(5));
}

// Blocks while the test holds its gate closed; otherwise answers at once:
// EPERM (as /dev/kmsg does without the capability) or success.
class GatedCollector : public Collector {
 public:
  GatedCollector(bool open, bool fail) : open_(open), fail_(fail) {}
  Status Collect(const ScrapeContext&, MetricSet&) override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return open_; });
    if (fail_) return Error{"open /dev/kmsg: Operation not permitted"};
    return Status::Ok();
  }
  void SetOpen(bool open) {
    {
      std::lock_guard lock(mu_);
      open_ = open;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_;
  const bool fail_;
};

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(CollectorRunnerTest, TimeoutsDoNotRelogAStandingFailure) {
  CapturedLog log;
  auto owned = std::make_unique<GatedCollector>(true, true);
  GatedCollector* gated = owned.get();
  std::vector<CollectorRunner::Entry> e;
  e.push_back({"kmsg", std::move(owned)});
  CollectorRunner runner(std::move(e));
  auto soon = [] {
    return std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  };
  MetricSet first = runner.Gather(soon());
  EXPECT_EQ(Gauge(first, "rnic_scrape_collector_success", "kmsg"), 0);
  EXPECT_EQ(Count(log.Take(), "collector failed"), 1u);
  // Unfinished scrapes (deadline, then still running) and the same error
  // again: nothing new to say.
  gated->SetOpen(false);
  MetricSet slow = runner.Gather(soon());
  EXPECT_EQ(Gauge(slow, "rnic_scrape_collector_success", "kmsg"), 0);
  (void)runner.Gather(soon());
  gated->SetOpen(true);
  runner.Drain(std::chrono::seconds(30));
  (void)runner.Gather(std::chrono::steady_clock::now() +
                      std::chrono::seconds(30));
  EXPECT_EQ(log.Take(), "");
}

TEST(CollectorRunnerTest, FailingCollectorsFamiliesAreDropped) {
  std::vector<CollectorRunner::Entry> e;
  e.push_back({"bad", std::make_unique<FixedCollector>(
                          1, std::chrono::milliseconds(0), true)});
  e.push_back({"good", std::make_unique<FixedCollector>(
                           2, std::chrono::milliseconds(0))});
  CollectorRunner runner(std::move(e));
  MetricSet set =
      runner.Gather(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "bad"), 0);
  EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "good"), 1);
  EXPECT_EQ(Samples(set, "rnic_test_value"), 1u);
}

TEST(CollectorRunnerTest, SlowCollectorsGetMoreThreads) {
  std::vector<CollectorRunner::Entry> e;
  for (int i = 0; i < 4; ++i) {
    e.push_back(
        {"c" + std::to_string(i),
         std::make_unique<FixedCollector>(i, std::chrono::milliseconds(300))});
  }
  CollectorRunner runner(std::move(e));
  // Serially these would need 1.2 s; the deadline allows each one alone, and
  // a quarter of it on, the pool adds a thread for the ones not begun.
  MetricSet set = runner.Gather(std::chrono::steady_clock::now() +
                                std::chrono::milliseconds(1100));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(
        Gauge(set, "rnic_scrape_collector_success", "c" + std::to_string(i)),
        1);
  }
  EXPECT_EQ(Samples(set, "rnic_test_value"), 4u);
}

// Records the thread each scrape ran it on.
class ThreadRecorder : public Collector {
 public:
  explicit ThreadRecorder(std::vector<std::thread::id>* ids) : ids_(ids) {}
  Status Collect(const ScrapeContext&, MetricSet&) override {
    ids_->push_back(std::this_thread::get_id());
    return Status::Ok();
  }

 private:
  std::vector<std::thread::id>* ids_;
};

TEST(CollectorRunnerTest, FastScrapesRunOnOnePooledThread) {
  constexpr int kCollectors = 6;
  std::vector<std::vector<std::thread::id>> ids(kCollectors);
  std::vector<CollectorRunner::Entry> e;
  for (int i = 0; i < kCollectors; ++i) {
    e.push_back(
        {"c" + std::to_string(i), std::make_unique<ThreadRecorder>(&ids[i])});
  }
  // No rescue within the test's time, however loaded the machine.
  CollectorRunner runner(std::move(e), nullptr, std::chrono::minutes(10));
  for (int scrape = 0; scrape < 20; ++scrape) {
    (void)runner.Gather(std::chrono::steady_clock::now() +
                        std::chrono::minutes(60));
  }
  // One thread woken per scrape, and the same one every time: a thread per
  // collector would show kCollectors ids.
  EXPECT_EQ(runner.PoolThreads(), 1u);
  for (const auto& v : ids) {
    ASSERT_EQ(v.size(), 20u);
    for (const auto& id : v) {
      EXPECT_EQ(id, ids[0][0]);
      EXPECT_NE(id, std::this_thread::get_id());
    }
  }
}

// Scrapes back to back: the next scrape's pass is asked for while the
// thread that ran the last one is still leaving it. It was once counted
// neither busy nor idle there, and a second thread started; a loaded host
// preempted it in that window (FastScrapesRunOnOnePooledThread failed).
TEST(CollectorRunnerTest, BackToBackScrapesNeverStartASecondThread) {
  std::vector<std::thread::id> ids;
  std::vector<CollectorRunner::Entry> e;
  e.push_back({"c", std::make_unique<ThreadRecorder>(&ids)});
  CollectorRunner runner(std::move(e), nullptr, std::chrono::minutes(10));
  constexpr int kScrapes = 3000;
  for (int scrape = 0; scrape < kScrapes; ++scrape) {
    (void)runner.Gather(std::chrono::steady_clock::now() +
                        std::chrono::minutes(60));
  }
  EXPECT_EQ(runner.PoolThreads(), 1u);
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(kScrapes));
  EXPECT_EQ(std::count(ids.begin(), ids.end(), ids[0]), kScrapes);
}

TEST(CollectorRunnerTest, HungCollectorDoesNotHoldTheOnesAfterIt) {
  auto owned = std::make_unique<GatedCollector>(false, false);
  GatedCollector* gate = owned.get();
  std::vector<CollectorRunner::Entry> e;
  e.push_back({"hung", std::move(owned)});
  e.push_back({"after", std::make_unique<FixedCollector>(
                            7, std::chrono::milliseconds(0))});
  CollectorRunner runner(std::move(e));
  // Two scrapes while the first collector hangs: the second is served in
  // both, the hung one fails both (deadline, then still running).
  for (int scrape = 0; scrape < 2; ++scrape) {
    MetricSet set = runner.Gather(std::chrono::steady_clock::now() +
                                  std::chrono::seconds(2));
    EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "hung"), 0);
    EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "after"), 1);
    EXPECT_EQ(Samples(set, "rnic_test_value"), 1u);
  }
  gate->SetOpen(true);
  runner.Drain(std::chrono::seconds(30));
  MetricSet set = runner.Gather(std::chrono::steady_clock::now() +
                                std::chrono::seconds(30));
  EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "hung"), 1);
  EXPECT_EQ(Gauge(set, "rnic_scrape_collector_success", "after"), 1);
}

}  // namespace
}  // namespace rnic
