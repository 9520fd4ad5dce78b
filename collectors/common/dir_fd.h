// The one directory lister, and an owning fd: getdents64 into a stack
// buffer, which allocates nothing per entry (no DIR*, no std::string), for
// the sysfs readers that list at every check (the host model, the sysfs
// source); ListDirectory on top of it for the rest.
#pragma once

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Calls fn(name, d_type) -- or fn(name, d_type, d_ino) -- for every entry
// of the open directory `dirfd` but "." and "..". False when the listing
// failed (errno set).
template <typename F>
bool ListDir(int dirfd, F&& fn) {
  alignas(8) char buf[8192];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dirfd, buf, sizeof(buf));
    if (n < 0) return false;
    if (n == 0) return true;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
      off += d->d_reclen;
      const std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      if constexpr (std::is_invocable_v<F, std::string_view, unsigned char,
                                        ino64_t>) {
        fn(name, d->d_type, d->d_ino);
      } else {
        fn(name, d->d_type);
      }
    }
  }
}

// Names in directory `name` of `dirfd` (AT_FDCWD: a path) but "." and "..",
// sorted. Errors carry errno: "opendir <name>".
[[nodiscard]] Result<std::vector<std::string>> ListDirectory(
    int dirfd, const std::string& name);
[[nodiscard]] Result<std::vector<std::string>> ListDirectory(
    const std::string& path);

}  // namespace rnic
