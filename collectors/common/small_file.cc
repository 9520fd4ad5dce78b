#include "collectors/common/small_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace rnic {
namespace {

long ReadRetrying(int fd, char* buf, std::size_t cap) {
  long n;
  do {
    n = ::read(fd, buf, cap);
  } while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

}  // namespace

std::string_view TrimTrailing(std::string_view text) {
  while (!text.empty()) {
    const char c = text.back();
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t' && c != '\0') break;
    text.remove_suffix(1);
  }
  return text;
}

long ReadSmallFile(int dirfd, const char* name, char* buf, std::size_t cap) {
  const int fd = OpenForReading(dirfd, name);
  if (fd < 0) return -errno;
  const long n = ReadRetrying(fd, buf, cap);
  ::close(fd);
  return n;
}

Result<std::string> ReadSmallFile(int dirfd, const std::string& name) {
  const int fd = OpenForReading(dirfd, name.c_str());
  if (fd < 0) return Error::FromErrno("open " + name, errno);
  // procfs may hand out a file in several reads: read to the end.
  std::string out;
  char buf[4096];
  for (;;) {
    const long n = ReadRetrying(fd, buf, sizeof(buf));
    if (n < 0) {
      ::close(fd);
      return Error::FromErrno("read " + name, static_cast<int>(-n));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  out.resize(TrimTrailing(out).size());
  return out;
}

Result<std::string> ReadSmallFile(const std::string& path) {
  return ReadSmallFile(AT_FDCWD, path);
}

Result<std::string> ReadSmallFile(CachedFd& held, const std::string& path) {
  char buf[4096];
  const long n = held.ReadFile(path.c_str(), buf, sizeof(buf));
  if (n < 0) return Error::FromErrno("read " + path, static_cast<int>(-n));
  return std::string(TrimTrailing(std::string_view(buf, n)));
}

}  // namespace rnic
