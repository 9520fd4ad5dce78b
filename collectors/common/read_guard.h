// Kernel reads with a deadline, off the scrape thread. A sysfs attribute
// whose driver hangs (a firmware command that never completes) blocks its
// reader in the kernel, uninterruptibly; read on the scrape thread it would
// hang every later scrape too. Here small files are read by worker threads
// and the caller waits at most until a deadline: a read that has not
// answered is reported as such, and its file is not read again until that
// read returns, so a hung file holds one thread, never one per scrape.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

class ReadGuard {
 public:
  using Clock = std::chrono::steady_clock;

  struct Options {
    // Workers at most (a hung file holds one until it returns); reads
    // beyond them wait for a free one.
    std::size_t max_threads = 16;
    // A worker inside one read this long while reads wait: another worker
    // is started for them.
    std::chrono::milliseconds help_after{50};
  };

  struct Answer {
    // The file's text (ReadSmallFile: trailing blanks removed) or its
    // error; nullopt when the read did not answer before the deadline.
    std::optional<Result<std::string>> text;
    // Unanswered: how long the file's read has been running (zero when it
    // was not started before the deadline).
    Clock::duration waiting{};
  };

  ReadGuard() : ReadGuard(Options{}) {}
  explicit ReadGuard(Options options);
  // Never waits for a hung read: its worker finishes (or not) on its own.
  ~ReadGuard();
  ReadGuard(const ReadGuard&) = delete;
  ReadGuard& operator=(const ReadGuard&) = delete;

  // Reads every path (held open across calls) and waits until all have
  // answered or `deadline` passed; one answer per path, in order.
  [[nodiscard]] std::vector<Answer> ReadAll(
      const std::vector<std::string>& paths, Clock::time_point deadline);

  struct Pending {
    std::size_t reads = 0;     // reads running now
    Clock::duration oldest{};  // how long the oldest has been running
  };
  // The reads still running (called between ReadAll calls: hung ones).
  [[nodiscard]] Pending PendingReads() const;
  // Drops the held files `keep` refuses (not those being read).
  void Retain(const std::function<bool(const std::string&)>& keep);
  // Worker threads alive (tests).
  [[nodiscard]] std::size_t threads() const;

 private:
  struct Shared;
  std::shared_ptr<Shared> s_;
};

}  // namespace rnic
