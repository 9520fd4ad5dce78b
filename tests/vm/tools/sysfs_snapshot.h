// Reads the attribute files of RDMA devices under <sysfs>/class/infiniband
// that the exporter's sysfs collector may serve: the device directory, its
// hw_counters/, and per port the port directory, hw_counters/, counters/ and
// counters_ext/ (not gids/ or pkeys/). Keys are paths relative to
// class/infiniband ("rxe0/ports/1/hw_counters/sent_pkts"), values the file
// content without the trailing newline. Unreadable files are left out.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rnic::vmtest {

using SysfsSnapshot = std::map<std::string, std::string>;

[[nodiscard]] SysfsSnapshot ReadSysfs(const std::string& sysfs_root,
                                      const std::vector<std::string>& devices);

}  // namespace rnic::vmtest
