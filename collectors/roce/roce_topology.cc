#include "collectors/roce/roce_topology.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

namespace rnic {
namespace {

// GID tables have up to 1024 entries and reading an empty one fails with
// EINVAL; the netdev sits in the first populated entries, so a port without
// GIDs costs at most this many reads before the fallbacks.
constexpr int kMaxGidEntriesTried = 16;

bool IsNumber(const std::string& s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string FindNetdev(const std::string& dev_dir, const std::string& port) {
  const std::string ndevs = dev_dir + "/ports/" + port + "/gid_attrs/ndevs";
  if (auto entries = ListDirectory(ndevs); entries.ok()) {
    std::vector<int> idx;
    for (const auto& e : *entries) {
      if (IsNumber(e)) idx.push_back(std::stoi(e));
    }
    std::sort(idx.begin(), idx.end());
    int tried = 0;
    for (int i : idx) {
      if (++tried > kMaxGidEntriesTried) break;
      auto nd = ReadTrimmed(ndevs + "/" + std::to_string(i));
      if (nd.ok() && !nd->empty()) return *nd;
    }
  }
  if (auto parent = ReadTrimmed(dev_dir + "/parent");
      parent.ok() && !parent->empty()) {
    return *parent;
  }
  if (auto net = ListDirectory(dev_dir + "/device/net");
      net.ok() && !net->empty()) {
    return net->front();
  }
  return "";
}

}  // namespace

Result<std::string> ReadTrimmed(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno("open " + path, errno);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      const int err = errno;
      close(fd);
      return Error::FromErrno("read " + path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' ||
                          out.back() == '\t' || out.back() == '\0')) {
    out.pop_back();
  }
  return out;
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return Error::FromErrno("opendir " + path, errno);
  std::vector<std::string> out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<RocePort>> DiscoverRocePorts(const std::string& sysfs) {
  std::vector<RocePort> out;
  const std::string cls = sysfs + "/class/infiniband";
  auto devices = ListDirectory(cls);
  if (!devices.ok()) {
    if (devices.error().errno_value == ENOENT) return out;
    return devices.error();
  }
  for (const auto& dev : *devices) {
    const std::string dev_dir = cls + "/" + dev;
    auto ports = ListDirectory(dev_dir + "/ports");
    if (!ports.ok()) continue;
    std::vector<std::string> sorted = *ports;
    std::sort(sorted.begin(), sorted.end(),
              [](const std::string& a, const std::string& b) {
                return a.size() != b.size() ? a.size() < b.size() : a < b;
              });
    for (const auto& port : sorted) {
      if (!IsNumber(port)) continue;
      auto ll = ReadTrimmed(dev_dir + "/ports/" + port + "/link_layer");
      if (!ll.ok() || *ll != "Ethernet") continue;
      out.push_back(RocePort{dev, port, FindNetdev(dev_dir, port), dev_dir});
    }
  }
  return out;
}

}  // namespace rnic
