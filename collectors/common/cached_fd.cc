#include "collectors/common/cached_fd.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

namespace rnic {
namespace {

std::atomic<long> g_cached_fds{0};

}  // namespace

long ReadAt0(int fd, char* buf, std::size_t cap) {
  long n;
  do {
    n = ::pread(fd, buf, cap, 0);
  } while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

int OpenForReading(int dirfd, const char* name) {
  static std::atomic<bool> noatime_allowed{true};
  if (noatime_allowed.load(std::memory_order_relaxed)) {
    const int fd = ::openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOATIME);
    if (fd >= 0 || errno != EPERM) return fd;
    noatime_allowed.store(false, std::memory_order_relaxed);
  }
  return ::openat(dirfd, name, O_RDONLY | O_CLOEXEC);
}

long CachedFdBudget() {
  static const long budget = [] {
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0L;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
      rlimit raised = rl;
      raised.rlim_cur = rl.rlim_max;
      if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
    }
    const long soft = rl.rlim_cur == RLIM_INFINITY
                          ? 1L << 20
                          : static_cast<long>(rl.rlim_cur);
    // Leave room for sockets and everything else: at least 1024 or 1/8.
    const long room = std::max(1024L, soft / 8);
    return std::clamp(std::max(soft / 2 - 64, soft - room), 0L, 65536L);
  }();
  return budget;
}

long CachedFdsInUse() { return g_cached_fds.load(std::memory_order_relaxed); }

bool CachedFd::Adopt(int fd) {
  Close();
  if (g_cached_fds.fetch_add(1, std::memory_order_relaxed) >=
      CachedFdBudget()) {
    g_cached_fds.fetch_sub(1, std::memory_order_relaxed);
    ::close(fd);
    return false;
  }
  fd_ = fd;
  return true;
}

void CachedFd::Close() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  g_cached_fds.fetch_sub(1, std::memory_order_relaxed);
}

long CachedFd::ReadFile(const char* path, char* buf, std::size_t cap) {
  if (fd_ >= 0) {
    const long n = ReadAt0(fd_, buf, cap);
    if (n >= 0) return n;
    Close();  // a removed node, or an error that a fresh open may not have
  }
  return OpenAndRead(AT_FDCWD, path, buf, cap);
}

long CachedFd::OpenAndRead(int dirfd, const char* name, char* buf,
                           std::size_t cap) {
  const int fd = OpenForReading(dirfd, name);
  if (fd < 0) return -errno;
  const long n = ReadAt0(fd, buf, cap);
  if (n < 0) {
    ::close(fd);
    return n;
  }
  Adopt(fd);
  return n;
}

}  // namespace rnic
