#include "exporter/path_check.h"

#include <sys/stat.h>

#include <cerrno>
#include <string>

namespace rnic {
namespace {

Status CheckDirectory(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return Error::FromErrno("--" + flag + ": " + path, errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Error{"--" + flag + ": " + path + ": not a directory"};
  }
  return Status::Ok();
}

}  // namespace

Status CheckPaths(const Paths& paths) {
  if (Status st = CheckDirectory("path.sysfs", paths.sysfs); !st) return st;
  return CheckDirectory("path.procfs", paths.procfs);
}

}  // namespace rnic
