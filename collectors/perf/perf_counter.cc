#include "collectors/perf/perf_counter.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace rnic {

Result<PerfCounter> PerfCounter::Open(std::uint32_t type,
                                      const EncodedEvent& ev, int cpu) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = ev.config[0];
  attr.config1 = ev.config[1];
  attr.config2 = ev.config[2];
  attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.disabled = 0;
  attr.inherit = 0;
  long fd =
      ::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string hint;
    if (err == EACCES || err == EPERM)
      hint = " (needs CAP_PERFMON or perf_event_paranoid < 1)";
    return Error{"perf_event_open: " + std::string(::strerror(err)) + hint,
                 err};
  }
  return PerfCounter(static_cast<int>(fd));
}

PerfCounter& PerfCounter::operator=(PerfCounter&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

PerfCounter::~PerfCounter() {
  if (fd_ >= 0) ::close(fd_);
}

Result<double> PerfCounter::Read() const {
  std::uint64_t v[3] = {0, 0, 0};  // value, time_enabled, time_running
  ssize_t n = ::read(fd_, v, sizeof v);
  if (n < 0) return Error::FromErrno("read perf counter", errno);
  if (n != sizeof v) return Error{"short read of perf counter"};
  double value = static_cast<double>(v[0]);
  if (v[2] != 0 && v[2] < v[1])
    value = value * static_cast<double>(v[1]) / static_cast<double>(v[2]);
  return value;
}

}  // namespace rnic
