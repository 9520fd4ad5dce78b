// Which RDMA ports run over Ethernet (RoCE, and iWARP/rxe-style devices whose
// link_layer says Ethernet) and which netdev carries each, from sysfs.
#pragma once

#include <string>
#include <vector>

#include "collectors/common/result.h"

namespace rnic {

struct RocePort {
  std::string device;      // RDMA device name, e.g. mlx5_0
  std::string port;        // decimal port number as in ports/<p>
  std::string netdev;      // "" when none could be found
  std::string device_dir;  // <sysfs>/class/infiniband/<device>
};

// Reads <sysfs>/class/infiniband/*/ports/*/link_layer and keeps the Ethernet
// ones. The netdev is the first non-empty ports/<p>/gid_attrs/ndevs/<i>,
// else the device's `parent` file (rxe, siw), else the first entry of
// device/net/. A missing class/infiniband is an empty list, not an error.
[[nodiscard]] Result<std::vector<RocePort>> DiscoverRocePorts(
    const std::string& sysfs);

// Reads a small sysfs/procfs file, trailing whitespace removed.
[[nodiscard]] Result<std::string> ReadTrimmed(const std::string& path);
// Entries of a directory, sorted; an error if it cannot be opened.
[[nodiscard]] Result<std::vector<std::string>> ListDirectory(
    const std::string& path);

}  // namespace rnic
