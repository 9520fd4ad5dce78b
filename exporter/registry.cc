#include "exporter/registry.h"

#include <spdlog/spdlog.h>

#include <deque>
#include <thread>

#include "collectors/common/log_once.h"
#include "exporter/exporter_families.h"

namespace rnic {

namespace {

constexpr char kStillRunning[] = "previous scrape still running";

using Clock = std::chrono::steady_clock;

// The tasks of one scrape. Gather() sleeps until the last one is done (or
// the deadline): one wake-up per scrape, not one per collector.
struct Batch {
  std::mutex mu;
  std::condition_variable cv;
  std::size_t remaining = 0;
};

// Fields below `batch` are guarded by batch->mu.
struct Task {
  Task(Clock::time_point d, std::shared_ptr<Batch> b)
      : deadline(d), batch(std::move(b)) {}
  const Clock::time_point deadline;
  const std::shared_ptr<Batch> batch;
  bool started = false;
  bool done = false;
  bool ok = false;
  std::string error;
  double seconds = 0;
  MetricSet out;
};

}  // namespace

// One collector and the thread that runs it. The thread lives as long as the
// runner: a thread per collector per scrape cost a clone, a stack and its
// page faults every time (about 8 % of a 16-port scrape in the VM). Scrapes
// queue their tasks; tasks run one at a time, since collectors keep state
// between scrapes.
struct CollectorRunner::Slot {
  std::string name;
  LabelSetPtr labels;  // collector=<name>
  std::unique_ptr<Collector> collector;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<Task>> queue;
  bool stop = false;
  std::thread worker;
  // Logged failure, so a collector failing every scrape logs only on change.
  std::string last_error;
  std::mutex last_error_mu;
};

namespace {

void Finish(Task& task, bool ok, std::string error, double seconds,
            MetricSet out) {
  Batch& b = *task.batch;
  bool last = false;
  {
    std::lock_guard<std::mutex> g(b.mu);
    task.done = true;
    task.ok = ok;
    task.error = std::move(error);
    task.seconds = seconds;
    task.out = std::move(out);
    last = --b.remaining == 0;
  }
  if (last) b.cv.notify_all();
}

}  // namespace

void CollectorRunner::Work(const std::shared_ptr<Slot>& slot,
                           const std::shared_ptr<std::atomic<int>>& pending) {
  for (;;) {
    std::shared_ptr<Task> task;
    {
      std::unique_lock<std::mutex> lk(slot->mu);
      slot->cv.wait(lk, [&] { return slot->stop || !slot->queue.empty(); });
      if (slot->queue.empty()) return;  // stopped
      task = std::move(slot->queue.front());
      slot->queue.pop_front();
    }
    const auto t0 = Clock::now();
    if (t0 >= task->deadline) {
      // Its scrape ended while an earlier one still ran this collector.
      Finish(*task, false, kStillRunning, 0, {});
    } else {
      {
        std::lock_guard<std::mutex> g(task->batch->mu);
        task->started = true;
      }
      bool ok = false;
      std::string error;
      MetricSet out;
      try {
        Status st =
            slot->collector->Collect(ScrapeContext{task->deadline}, out);
        ok = st.ok();
        if (!ok) error = st.error().ToString();
      } catch (const std::exception& e) {
        error = std::string("exception: ") + e.what();
      }
      Finish(*task, ok, std::move(error),
             std::chrono::duration<double>(Clock::now() - t0).count(),
             std::move(out));
    }
    pending->fetch_sub(1);
  }
}

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
  for (const auto& s : slots_) {
    s->worker = std::thread(&CollectorRunner::Work, s, running_);
  }
}

CollectorRunner::~CollectorRunner() {
  Drain(std::chrono::seconds(5));
  // Idle workers are joined; one stuck in a collector past the drain is left
  // to finish on its own (it holds its slot), so a hung read never blocks
  // shutdown.
  const bool idle = running_->load() == 0;
  for (const auto& s : slots_) {
    {
      std::lock_guard<std::mutex> g(s->mu);
      s->stop = true;
    }
    s->cv.notify_all();
  }
  for (const auto& s : slots_) {
    if (idle) {
      s->worker.join();
    } else {
      s->worker.detach();
    }
  }
}

std::vector<std::string> CollectorRunner::Names() const {
  std::vector<std::string> n;
  for (const auto& s : slots_) n.push_back(s->name);
  return n;
}

MetricSet CollectorRunner::Gather(Clock::time_point deadline) {
  const auto start = Clock::now();
  if (before_scrape_) {
    std::lock_guard<std::mutex> g(before_scrape_mu_);
    before_scrape_();
  }
  auto batch = std::make_shared<Batch>();
  batch->remaining = slots_.size();
  std::vector<std::shared_ptr<Task>> tasks;
  tasks.reserve(slots_.size());
  for (const auto& slot : slots_) {
    auto task = std::make_shared<Task>(deadline, batch);
    tasks.push_back(task);
    running_->fetch_add(1);
    {
      std::lock_guard<std::mutex> g(slot->mu);
      slot->queue.push_back(std::move(task));
    }
    slot->cv.notify_one();
  }

  std::unique_lock<std::mutex> lk(batch->mu);
  batch->cv.wait_until(lk, deadline, [&] { return batch->remaining == 0; });
  MetricSet result;
  MetricSet meta;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& task = *tasks[i];
    auto& slot = *slots_[i];
    const bool done = task.done;
    std::string error;
    double seconds;
    if (!done) {
      // Not begun: an earlier scrape still holds the collector.
      error = task.started ? "deadline exceeded" : kStillRunning;
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
    } else {
      seconds = task.seconds;
      if (task.ok) {
        result.Merge(std::move(task.out));
      } else {
        error = task.error;
      }
    }
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
  lk.unlock();
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
