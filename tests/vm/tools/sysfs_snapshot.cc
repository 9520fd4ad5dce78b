#include "tests/vm/tools/sysfs_snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

namespace rnic::vmtest {
namespace fs = std::filesystem;
namespace {

// The content of a sysfs attribute; false when reading fails (sysfs answers
// EINVAL, EOPNOTSUPP... for values a device cannot give).
bool ReadAttribute(const fs::path& path, std::string& value) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n < 0) return false;
  value.assign(buf, static_cast<std::size_t>(n));
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) {
    value.pop_back();
  }
  return true;
}

// Regular files directly inside `dir`, added under `prefix`.
void ReadDir(const fs::path& dir, const std::string& prefix,
             SysfsSnapshot& out) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    std::string value;
    if (ReadAttribute(entry.path(), value)) {
      out[prefix + "/" + entry.path().filename().string()] = value;
    }
  }
}

}  // namespace

SysfsSnapshot ReadSysfs(const std::string& sysfs_root,
                        const std::vector<std::string>& devices) {
  SysfsSnapshot out;
  const fs::path cls = fs::path(sysfs_root) / "class/infiniband";
  for (const auto& dev : devices) {
    const fs::path d = cls / dev;
    ReadDir(d, dev, out);
    ReadDir(d / "hw_counters", dev + "/hw_counters", out);
    std::error_code ec;
    for (const auto& port : fs::directory_iterator(d / "ports", ec)) {
      const std::string p = dev + "/ports/" + port.path().filename().string();
      ReadDir(port.path(), p, out);
      for (const char* sub : {"hw_counters", "counters", "counters_ext"}) {
        ReadDir(port.path() / sub, p + "/" + sub, out);
      }
    }
  }
  return out;
}

}  // namespace rnic::vmtest
