#include "exporter/registry.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "collectors/common/log_once.h"
#include "exporter/exporter_families.h"

namespace rnic {

struct CollectorRunner::Slot {
  std::string name;
  LabelSetPtr labels;  // collector=<name>
  std::unique_ptr<Collector> collector;
  // Serializes Collect() calls: collectors may keep state between scrapes.
  std::timed_mutex run;
  // Logged failure, so a collector failing every scrape logs only on change.
  std::string last_error;
  std::mutex last_error_mu;
};

namespace {

constexpr char kStillRunning[] = "previous scrape still running";

struct Task {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool ok = false;
  std::string error;
  double seconds = 0;
  MetricSet out;
};

}  // namespace

CollectorRunner::CollectorRunner(std::vector<Entry> entries,
                                 std::function<void()> before_scrape)
    : before_scrape_(std::move(before_scrape)) {
  for (auto& e : entries) {
    auto s = std::make_shared<Slot>();
    s->name = std::move(e.name);
    s->labels = LabelSet::Make({{"collector", s->name}});
    s->collector = std::move(e.collector);
    slots_.push_back(std::move(s));
  }
}

CollectorRunner::~CollectorRunner() { Drain(std::chrono::seconds(5)); }

std::vector<std::string> CollectorRunner::Names() const {
  std::vector<std::string> n;
  for (const auto& s : slots_) n.push_back(s->name);
  return n;
}

MetricSet CollectorRunner::Gather(
    std::chrono::steady_clock::time_point deadline) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  if (before_scrape_) {
    std::lock_guard<std::mutex> g(before_scrape_mu_);
    before_scrape_();
  }
  std::vector<std::shared_ptr<Task>> tasks;
  tasks.reserve(slots_.size());
  for (const auto& slot : slots_) {
    auto task = std::make_shared<Task>();
    tasks.push_back(task);
    running_->fetch_add(1);
    std::thread([slot, task, deadline, running = running_] {
      const auto t0 = Clock::now();
      bool ok = false;
      std::string error;
      MetricSet out;
      if (slot->run.try_lock_until(deadline)) {
        std::lock_guard<std::timed_mutex> g(slot->run, std::adopt_lock);
        try {
          Status st = slot->collector->Collect(ScrapeContext{deadline}, out);
          ok = st.ok();
          if (!ok) error = st.error().ToString();
        } catch (const std::exception& e) {
          error = std::string("exception: ") + e.what();
        }
      } else {
        error = kStillRunning;
      }
      {
        std::lock_guard<std::mutex> g(task->mu);
        task->done = true;
        task->ok = ok;
        task->error = std::move(error);
        task->seconds =
            std::chrono::duration<double>(Clock::now() - t0).count();
        task->out = std::move(out);
      }
      task->cv.notify_all();
      running->fetch_sub(1);
    }).detach();
  }

  MetricSet result;
  MetricSet meta;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& task = *tasks[i];
    auto& slot = *slots_[i];
    std::unique_lock<std::mutex> lk(task.mu);
    bool done = task.cv.wait_until(lk, deadline, [&] { return task.done; });
    std::string error;
    double seconds;
    if (!done) {
      error = "deadline exceeded";
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
    } else {
      seconds = task.seconds;
      if (task.ok) {
        result.Merge(std::move(task.out));
      } else {
        error = task.error;
      }
    }
    lk.unlock();
    {
      std::lock_guard<std::mutex> g(slot.last_error_mu);
      // A scrape the collector did not finish says nothing about a failure
      // already logged (EPERM on /dev/kmsg stays EPERM): keeping that state
      // stops a slow host from logging the same error after every timeout.
      const bool unfinished = !done || error == kStillRunning;
      const bool keep = unfinished && !slot.last_error.empty();
      if (!keep && error != slot.last_error) {
        // Logged when the outcome changes, not at every failed scrape.
        if (!error.empty()) {
          LogEvent(spdlog::level::err, slot.name, "collector failed",
                   {{"err", error}});
        } else {
          LogEvent(spdlog::level::info, slot.name, "collector recovered", {});
        }
        slot.last_error = error;
      }
    }
    meta.Add(exporter_families::kCollectorSuccess, slot.labels,
             error.empty() ? 1 : 0);
    meta.Add(exporter_families::kCollectorDuration, slot.labels, seconds);
  }
  result.Merge(std::move(meta));
  return result;
}

void CollectorRunner::Drain(std::chrono::milliseconds max_wait) {
  const auto until = std::chrono::steady_clock::now() + max_wait;
  while (running_->load() > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace rnic
