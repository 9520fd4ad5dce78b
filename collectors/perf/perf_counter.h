// One counting perf event opened with perf_event_open(2), system-wide on one
// CPU (pid -1), as uncore and NIC PMUs require. Reads are scaled for
// multiplexing with the enabled/running times.
#pragma once

#include <cstdint>
#include <functional>

#include "collectors/common/result.h"
#include "collectors/perf/pmu_catalog.h"

namespace rnic {

class PerfCounter {
 public:
  [[nodiscard]] static Result<PerfCounter> Open(std::uint32_t type,
                                                const EncodedEvent& ev,
                                                int cpu);
  // Owns `fd`, an open counter that reads as perf_event_open's do (value,
  // time enabled, time running). For a fake of the syscall in tests.
  [[nodiscard]] static PerfCounter Adopt(int fd) { return PerfCounter(fd); }
  PerfCounter(PerfCounter&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  PerfCounter& operator=(PerfCounter&& o) noexcept;
  PerfCounter(const PerfCounter&) = delete;
  PerfCounter& operator=(const PerfCounter&) = delete;
  ~PerfCounter();

  // Count since open, scaled by time_enabled / time_running.
  [[nodiscard]] Result<double> Read() const;

 private:
  explicit PerfCounter(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The perf_event_open boundary: PerfCounter::Open, or a fake of the syscall
// where uncore PMUs do not exist (unit tests).
using PerfOpener = std::function<Result<PerfCounter>(
    std::uint32_t type, const EncodedEvent& ev, int cpu)>;

}  // namespace rnic
