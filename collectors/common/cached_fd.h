// Files read at every scrape, held open across scrapes. A read at offset 0
// makes sysfs (and procfs) call the attribute's show() again, so one pread()
// replaces open/read/close: three syscalls, a path walk and a kernfs buffer
// allocation. Process-wide at most CachedFdBudget() descriptors are kept;
// beyond it a file is opened per read.
#pragma once

#include <cstddef>

namespace rnic {

class CachedFd {
 public:
  CachedFd() = default;
  ~CachedFd() { Close(); }
  CachedFd(CachedFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  CachedFd& operator=(CachedFd&& o) noexcept {
    if (this != &o) {
      Close();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  CachedFd(const CachedFd&) = delete;
  CachedFd& operator=(const CachedFd&) = delete;

  [[nodiscard]] int get() const { return fd_; }
  // Takes ownership if the budget allows; otherwise closes fd. Returns
  // whether it was kept.
  bool Adopt(int fd);
  void Close();

  // Reads `path` from offset 0 into buf: bytes read, or -errno. The first
  // read opens it (kept if the budget allows). A held descriptor that fails
  // (the file's kernfs node was removed: ENODEV) is closed and `path` opened
  // again once, so a netdev deleted and created under the same name reads
  // the new one.
  [[nodiscard]] long ReadFile(const char* path, char* buf, std::size_t cap);
  // Opens `name` of `dirfd` (AT_FDCWD: a path), reads it from offset 0 and
  // keeps it if the read worked and the budget allows: bytes or -errno.
  [[nodiscard]] long OpenAndRead(int dirfd, const char* name, char* buf,
                                 std::size_t cap);

 private:
  int fd_ = -1;
};

// Descriptors that may be kept open, process-wide: half the RLIMIT_NOFILE
// soft limit (raised to the hard limit once, as Go programs such as
// node_exporter do at start-up), at most 65536.
[[nodiscard]] long CachedFdBudget();
[[nodiscard]] long CachedFdsInUse();

// pread(fd, buf, cap, 0), retried on EINTR: bytes read or -errno.
[[nodiscard]] long ReadAt0(int fd, char* buf, std::size_t cap);

// Opens a file of `dirfd` (AT_FDCWD: a path) read-only without updating its
// access time: a monitor should not dirty inodes, and on file systems that
// keep atime (fixture trees) the update costs more than the read.
// O_NOATIME needs the file's owner or CAP_FOWNER; without them the plain
// open is used.
[[nodiscard]] int OpenForReading(int dirfd, const char* name);

}  // namespace rnic
