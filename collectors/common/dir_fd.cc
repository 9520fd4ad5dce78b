#include "collectors/common/dir_fd.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

namespace rnic {

Result<std::vector<std::string>> ListDirectory(int dirfd,
                                               const std::string& name) {
  const Fd dir(
      ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) return Error::FromErrno("opendir " + name, errno);
  std::vector<std::string> out;
  if (!ListDir(dir.get(), [&](std::string_view n, unsigned char) {
        out.emplace_back(n);
      })) {
    return Error::FromErrno("readdir " + name, errno);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  return ListDirectory(AT_FDCWD, path);
}

}  // namespace rnic
