// Threads that run what the HTTP server's event loop hands them (scrapes,
// probes, password checks), so the loop never waits for a collector and a
// slow client never holds a thread. Threads start when work arrives and no
// idle one is left, up to the pool's size; queued work waits for the next
// free thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rnic {

class WorkerPool {
 public:
  // `name`: the threads' name in ps and perf (at most 15 characters).
  WorkerPool(int max_threads, std::string name)
      : max_threads_(max_threads), name_(std::move(name)) {}
  ~WorkerPool() { Stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Calls `before`, then queues `task`, under one lock: no thread starts the
  // task before `before` returned. False, calling neither, once stopping.
  bool Post(std::function<void()> task,
            const std::function<void()>& before = {});
  // Lets the queued tasks finish, then joins the threads.
  void Stop();
  // Threads started so far (for tests).
  [[nodiscard]] int threads();

 private:
  void Run();

  const int max_threads_;
  const std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  int idle_ = 0;
  bool stopping_ = false;
};

}  // namespace rnic
