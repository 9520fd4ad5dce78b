// PCI address -> RDMA device name, from <sysfs>/class/infiniband/<dev>:
// the PCI function its `device` link resolves to, or, for software devices
// without one (rxe), the PCI function of the netdev named in its `parent`
// file (<sysfs>/class/net/<parent>/device).
#pragma once

#include <map>
#include <string>

namespace rnic::kmsg {

[[nodiscard]] std::map<std::string, std::string> ReadPciToRdmaDevice(
    const std::string& sysfs_root);

// Last PCI address among the components of the fully resolved `link`,
// e.g. .../0000:00:03.0/virtio0 -> 0000:00:03.0. "" if none.
[[nodiscard]] std::string PciOfLink(const std::string& link);

}  // namespace rnic::kmsg
