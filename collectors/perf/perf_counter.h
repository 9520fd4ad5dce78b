// One counting perf event opened with perf_event_open(2), system-wide on one
// CPU (pid -1), as uncore and NIC PMUs require. Reads are scaled for
// multiplexing with the enabled/running times.
#pragma once

#include <cstdint>

#include "collectors/common/result.h"
#include "collectors/perf/pmu_catalog.h"

namespace rnic {

class PerfCounter {
 public:
  [[nodiscard]] static Result<PerfCounter> Open(std::uint32_t type,
                                                const EncodedEvent& ev,
                                                int cpu);
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

}  // namespace rnic
