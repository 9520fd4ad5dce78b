#include "exporter/registry.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
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

// One collector: its queue of tasks and whether a thread runs it now.
// Collectors keep state between scrapes, so one runs at a time; whichever
// pooled thread finds it idle with a task queued runs it.
struct Slot {
  std::string name;
  LabelSetPtr labels;  // collector=<name>
  std::unique_ptr<Collector> collector;
  std::mutex mu;  // guards queue and busy
  std::deque<std::shared_ptr<Task>> queue;
  bool busy = false;
  // Logged failure, so a collector failing every scrape logs only on change.
  std::string last_error;
  std::mutex last_error_mu;
};

// Runs the slot's next task if no other thread runs the collector. A thread
// that finishes a task looks at the queue again, so a task queued while the
// collector was busy (a scrape after a slow one) is never left behind.
// `clock` is the time the previous task of the pass ended, if any: one clock
// read per collector, not two (under an emulated HPET each is a trap).
bool RunOne(Slot& slot, std::atomic<int>& running, Clock::time_point& clock) {
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> g(slot.mu);
    if (slot.busy || slot.queue.empty()) return false;
    task = std::move(slot.queue.front());
    slot.queue.pop_front();
    slot.busy = true;
  }
  const auto t0 = clock == Clock::time_point{} ? Clock::now() : clock;
  clock = t0;
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
      Status st = slot.collector->Collect(ScrapeContext{task->deadline}, out);
      ok = st.ok();
      if (!ok) error = st.error().ToString();
    } catch (const std::exception& e) {
      error = std::string("exception: ") + e.what();
    }
    clock = Clock::now();
    Finish(*task, ok, std::move(error),
           std::chrono::duration<double>(clock - t0).count(), std::move(out));
  }
  {
    std::lock_guard<std::mutex> g(slot.mu);
    slot.busy = false;
  }
  running.fetch_sub(1);
  return true;
}

}  // namespace

// Shared with the pooled threads, which outlive the runner when one is stuck
// in a collector past shutdown.
struct CollectorRunner::Shared {
  std::vector<std::unique_ptr<Slot>> slots;
  // Tasks queued or running (some may have outlived their scrape).
  std::atomic<int> running{0};
  std::mutex mu;  // guards the pool below
  std::condition_variable cv;
  int passes = 0;   // passes asked for and not yet taken
  int idle = 0;     // threads waiting for a pass
  int in_pass = 0;  // threads in a pass
  bool stop = false;
  std::vector<std::thread> threads;
};

void CollectorRunner::PoolThread(const std::shared_ptr<Shared>& sh) {
  // Named apart from the HTTP thread that started it (the name is inherited):
  // traces and top -H tell collection from serving.
  pthread_setname_np(pthread_self(), "rnic-collect");
  std::unique_lock<std::mutex> lk(sh->mu);
  for (;;) {
    // Leaving a pass and becoming idle is one step under the lock: between
    // two, PostPass would count this thread neither in a pass nor idle and
    // start another (seen on a loaded host: two threads for fast scrapes).
    ++sh->idle;
    sh->cv.wait(lk, [&] { return sh->stop || sh->passes > 0; });
    --sh->idle;
    if (sh->passes == 0) return;  // stopped
    --sh->passes;
    ++sh->in_pass;
    lk.unlock();
    Clock::time_point clock{};
    for (const auto& slot : sh->slots) {
      while (RunOne(*slot, sh->running, clock)) {
      }
    }
    lk.lock();
    --sh->in_pass;
  }
}

void CollectorRunner::PostPass(const std::shared_ptr<Shared>& sh, bool rescue) {
  {
    std::lock_guard<std::mutex> g(sh->mu);
    ++sh->passes;
    // A thread still in a pass takes the next one when it is done, unless
    // this pass is a rescue: then that thread is the one held up. One ready
    // thread is enough however many passes are pending: a pass finds every
    // queued task, so a thread that ran a later scrape's task in an earlier
    // pass leaves passes that cost nothing (counting them against the ready
    // threads started a second thread for fast scrapes back to back).
    const int ready = sh->idle + (rescue ? 0 : sh->in_pass);
    // At most one thread per collector plus one: more could only wait for a
    // busy collector.
    if (ready == 0 && sh->threads.size() <= sh->slots.size()) {
      sh->threads.emplace_back(&CollectorRunner::PoolThread, sh);
    }
  }
  sh->cv.notify_one();
}

CollectorRunner::CollectorRunner(std::vector<Entry> entries,
                                 std::function<void()> before_scrape,
                                 std::chrono::milliseconds parallel_after)
    : shared_(std::make_shared<Shared>()),
      before_scrape_(std::move(before_scrape)),
      parallel_after_(parallel_after) {
  for (auto& e : entries) {
    auto s = std::make_unique<Slot>();
    s->name = std::move(e.name);
    s->labels = LabelSet::Make({{"collector", s->name}});
    s->collector = std::move(e.collector);
    shared_->slots.push_back(std::move(s));
  }
}

CollectorRunner::~CollectorRunner() {
  Drain(std::chrono::seconds(5));
  // Idle threads are joined; one stuck in a collector past the drain is left
  // to finish on its own (it holds the shared state), so a hung read never
  // blocks shutdown.
  const bool idle = shared_->running.load() == 0;
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> g(shared_->mu);
    shared_->stop = true;
    threads.swap(shared_->threads);
  }
  shared_->cv.notify_all();
  for (auto& t : threads) {
    if (idle) {
      t.join();
    } else {
      t.detach();
    }
  }
}

std::size_t CollectorRunner::PoolThreads() const {
  std::lock_guard<std::mutex> g(shared_->mu);
  return shared_->threads.size();
}

std::vector<std::string> CollectorRunner::Names() const {
  std::vector<std::string> n;
  for (const auto& s : shared_->slots) n.push_back(s->name);
  return n;
}

MetricSet CollectorRunner::Gather(Clock::time_point deadline) {
  const auto start = Clock::now();
  if (before_scrape_) {
    std::lock_guard<std::mutex> g(before_scrape_mu_);
    before_scrape_();
  }
  const auto& slots = shared_->slots;
  auto batch = std::make_shared<Batch>();
  batch->remaining = slots.size();
  std::vector<std::shared_ptr<Task>> tasks;
  tasks.reserve(slots.size());
  for (const auto& slot : slots) {
    auto task = std::make_shared<Task>(deadline, batch);
    tasks.push_back(task);
    shared_->running.fetch_add(1);
    std::lock_guard<std::mutex> g(slot->mu);
    slot->queue.push_back(std::move(task));
  }
  PostPass(shared_, false);

  // Now and then while collectors run: if one is slow (or hung), another
  // thread takes those not begun yet.
  const auto step = std::max<Clock::duration>(
      std::chrono::milliseconds(1),
      std::min<Clock::duration>(parallel_after_, (deadline - start) / 4));
  auto next = start + step;
  std::unique_lock<std::mutex> lk(batch->mu);
  while (!batch->cv.wait_until(lk, std::min(deadline, next),
                               [&] { return batch->remaining == 0; })) {
    if (Clock::now() >= deadline) break;
    next += step;
    const bool waiting =
        std::any_of(tasks.begin(), tasks.end(),
                    [](const auto& t) { return !t->started && !t->done; });
    if (waiting) {
      lk.unlock();
      PostPass(shared_, true);
      lk.lock();
    }
  }
  MetricSet result;
  MetricSet meta;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    auto& task = *tasks[i];
    auto& slot = *slots[i];
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
  while (shared_->running.load() > 0 &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace rnic
