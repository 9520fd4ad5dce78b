#include "collectors/common/read_guard.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "collectors/common/cached_fd.h"
#include "collectors/common/small_file.h"

namespace rnic {

struct ReadGuard::Shared {
  struct Slot {
    std::string path;
    CachedFd fd;           // used by the one worker reading it (busy)
    bool busy = false;     // queued or being read
    bool running = false;  // being read, since `since`
    Clock::time_point since{};
  };
  struct Batch {
    std::vector<std::optional<Result<std::string>>> out;
    std::size_t remaining = 0;
  };
  struct Job {
    std::shared_ptr<Slot> slot;
    std::shared_ptr<Batch> batch;
    std::size_t index = 0;
  };

  explicit Shared(Options o) : opt(o) {}

  const Options opt;
  mutable std::mutex mu;
  std::condition_variable work;  // workers wait for jobs
  std::condition_variable done;  // callers wait for their batch
  std::deque<Job> queue;
  std::map<std::string, std::shared_ptr<Slot>, std::less<>> slots;
  std::size_t threads = 0, idle = 0;
  bool stop = false;

  // Workers are detached and own the state with the guard: a worker hung in
  // the kernel outlives the guard and exits when its read returns.
  static void Work(std::shared_ptr<Shared> s) {
    std::unique_lock lk(s->mu);
    for (;;) {
      while (!s->stop && s->queue.empty()) {
        ++s->idle;
        s->work.wait(lk);
        --s->idle;
      }
      if (s->stop) break;
      Job j = std::move(s->queue.front());
      s->queue.pop_front();
      j.slot->running = true;
      j.slot->since = Clock::now();
      lk.unlock();
      auto r = ReadSmallFile(j.slot->fd, j.slot->path);
      lk.lock();
      j.slot->running = false;
      j.slot->busy = false;
      j.batch->out[j.index] = std::move(r);
      if (--j.batch->remaining == 0) s->done.notify_all();
    }
    --s->threads;
  }

  // With mu held.
  void Spawn(const std::shared_ptr<Shared>& self) {
    if (threads >= opt.max_threads) return;
    ++threads;
    std::thread(Work, self).detach();
  }
};

ReadGuard::ReadGuard(Options options) : s_(std::make_shared<Shared>(options)) {}

ReadGuard::~ReadGuard() {
  std::lock_guard lk(s_->mu);
  s_->stop = true;
  for (auto& j : s_->queue) j.slot->busy = false;
  s_->queue.clear();
  s_->work.notify_all();
}

std::vector<ReadGuard::Answer> ReadGuard::ReadAll(
    const std::vector<std::string>& paths, Clock::time_point deadline) {
  std::vector<Answer> answers(paths.size());
  std::vector<std::shared_ptr<Shared::Slot>> slot_of(paths.size());
  auto batch = std::make_shared<Shared::Batch>();
  batch->out.resize(paths.size());
  Shared& s = *s_;
  std::unique_lock lk(s.mu);
  Clock::time_point now = Clock::now();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto it = s.slots.find(paths[i]);
    if (it == s.slots.end()) {
      it = s.slots.emplace(paths[i], std::make_shared<Shared::Slot>()).first;
      it->second->path = paths[i];
    }
    auto& slot = it->second;
    slot_of[i] = slot;
    if (slot->busy) continue;  // still being read: not asked twice
    slot->busy = true;
    s.queue.push_back({slot, batch, i});
    ++batch->remaining;
  }
  if (batch->remaining > 0) {
    if (s.idle == 0) s.Spawn(s_);
    s.work.notify_all();
  }
  while (batch->remaining > 0 && now < deadline) {
    const Clock::time_point wake = std::min(deadline, now + s.opt.help_after);
    s.done.wait_until(lk, wake, [&] { return batch->remaining == 0; });
    now = Clock::now();
    // Reads wait while every worker is inside a read: one of them may be
    // hung, so another worker takes the rest.
    if (batch->remaining > 0 && s.idle == 0) {
      for (const auto& j : s.queue) {
        if (j.batch == batch) {
          s.Spawn(s_);
          s.work.notify_one();
          break;
        }
      }
    }
  }
  // Reads not started by the deadline are taken back.
  for (auto it = s.queue.begin(); it != s.queue.end();) {
    if (it->batch == batch) {
      it->slot->busy = false;
      it = s.queue.erase(it);
    } else {
      ++it;
    }
  }
  now = Clock::now();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (batch->out[i]) {
      answers[i].text = std::move(batch->out[i]);
    } else if (slot_of[i]->running) {
      answers[i].waiting = now - slot_of[i]->since;
    }
  }
  return answers;
}

ReadGuard::Pending ReadGuard::PendingReads() const {
  std::lock_guard lk(s_->mu);
  const Clock::time_point now = Clock::now();
  Pending p;
  for (const auto& [path, slot] : s_->slots) {
    if (!slot->running) continue;
    ++p.reads;
    p.oldest = std::max(p.oldest, now - slot->since);
  }
  return p;
}

void ReadGuard::Retain(const std::function<bool(const std::string&)>& keep) {
  std::lock_guard lk(s_->mu);
  std::erase_if(s_->slots, [&](const auto& kv) {
    return !kv.second->busy && !keep(kv.first);
  });
}

std::size_t ReadGuard::threads() const {
  std::lock_guard lk(s_->mu);
  return s_->threads;
}

}  // namespace rnic
