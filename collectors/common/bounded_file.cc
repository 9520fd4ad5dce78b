#include "collectors/common/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "collectors/common/dir_fd.h"

namespace rnic {
namespace {

Error TooLarge(const std::string& path, std::size_t limit) {
  return Error{path + ": larger than " + std::to_string(limit) + " bytes"};
}

// An fd of a regular file within `limit`, or the reason. O_NONBLOCK: opening
// a FIFO without writers would otherwise wait for one.
Result<Fd> OpenRegular(const std::string& path, std::size_t limit) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return Error::FromErrno(path + ": cannot be read", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return Error::FromErrno(path + ": cannot be read", errno);
  }
  if (!S_ISREG(st.st_mode)) return Error{path + ": not a regular file"};
  if (static_cast<std::size_t>(st.st_size) > limit) {
    return TooLarge(path, limit);
  }
  return fd;
}

}  // namespace

Result<std::string> ReadBoundedFile(const std::string& path,
                                    std::size_t limit) {
  auto fd = OpenRegular(path, limit);
  if (!fd) return fd.error();
  // The size may change between fstat and read: read to the end, but never
  // more than limit + 1 bytes.
  std::string out;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd->get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::FromErrno(path + ": cannot be read", errno);
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > limit) {
      return TooLarge(path, limit);
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

Status CheckBoundedFile(const std::string& path, std::size_t limit) {
  auto fd = OpenRegular(path, limit);
  if (!fd) return fd.error();
  return Status::Ok();
}

}  // namespace rnic
