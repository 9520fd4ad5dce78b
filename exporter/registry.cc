#include "exporter/registry.h"

#include <spdlog/spdlog.h>

#include <thread>

namespace rnic {

struct CollectorRunner::Slot {
  std::string name;
  std::unique_ptr<Collector> collector;
  // Serializes Collect() calls: collectors may keep state between scrapes.
  std::timed_mutex run;
  // Logged failure, so a collector failing every scrape logs only on change.
  std::string last_error;
  std::mutex last_error_mu;
};

namespace {

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

CollectorRunner::CollectorRunner(std::vector<Entry> entries) {
  for (auto& e : entries) {
    auto s = std::make_shared<Slot>();
    s->name = std::move(e.name);
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
        error = "previous scrape still running";
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
      if (error != slot.last_error) {
        if (!error.empty()) {
          spdlog::error("collector={} msg=\"collector failed\" err=\"{}\"",
                        slot.name, error);
        } else {
          spdlog::info("collector={} msg=\"collector recovered\"", slot.name);
        }
        slot.last_error = error;
      }
    }
    meta.AddGauge("rnic_scrape_collector_success",
                  "rnic_exporter: Whether a collector succeeded within the "
                  "scrape deadline.",
                  {{"collector", slot.name}}, error.empty() ? 1 : 0);
    meta.AddGauge("rnic_scrape_collector_duration_seconds",
                  "rnic_exporter: Duration of a collector scrape.",
                  {{"collector", slot.name}}, seconds);
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
