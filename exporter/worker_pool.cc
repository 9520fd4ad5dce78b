#include "exporter/worker_pool.h"

#include <pthread.h>

namespace rnic {

bool WorkerPool::Post(std::function<void()> task,
                      const std::function<void()>& before) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  if (before) before();
  queue_.push_back(std::move(task));
  // An idle thread counts until it has woken up: more tasks than idle
  // threads start one more.
  if (static_cast<int>(queue_.size()) > idle_ &&
      static_cast<int>(threads_.size()) < max_threads_) {
    threads_.emplace_back([this] { Run(); });
  } else {
    cv_.notify_one();
  }
  return true;
}

void WorkerPool::Run() {
  pthread_setname_np(pthread_self(), name_.c_str());
  std::unique_lock lock(mu_);
  for (;;) {
    while (queue_.empty() && !stopping_) {
      ++idle_;
      cv_.wait(lock);
      --idle_;
    }
    if (queue_.empty()) return;  // stopping, nothing left
    auto task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

void WorkerPool::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
}

int WorkerPool::threads() {
  std::lock_guard lock(mu_);
  return static_cast<int>(threads_.size());
}

}  // namespace rnic
