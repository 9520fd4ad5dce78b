// Host tuning facts RoCE depends on that change at run time, read from sysfs
// and procfs: the netdev's MTU, where the NIC's MSI-X interrupts may run, and
// the per-priority RoCE ECN switches some drivers expose. (NUMA node and IRQ
// vectors are topology: the host model has them.)
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collectors/common/cached_fd.h"
#include "collectors/common/result.h"

namespace rnic {

// An MTU large enough to carry a 4096-byte RoCE payload with its Ethernet,
// IP, UDP, BTH and extension headers; the usual recommendation.
inline constexpr int kRoce4096MinNetdevMtu = 4200;

// <sysfs>/class/net/<netdev>/mtu
[[nodiscard]] Result<int> ReadNetdevMtu(const std::string& sysfs,
                                        const std::string& netdev);
// An integer file held open in `held` (the MTU at every scrape).
[[nodiscard]] Result<int> ReadInt(CachedFd& held, const std::string& path);

// CPUs of <sysfs>/devices/system/node/node<N>/cpulist.
[[nodiscard]] Result<std::vector<int>> ReadNodeCpus(const std::string& sysfs,
                                                    int node);

// ReadNodeCpus, once per node until Clear() (the host model changed): the
// roce and expect collectors compare every device's IRQs against it.
class NodeCpuCache {
 public:
  explicit NodeCpuCache(std::string sysfs) : sysfs_(std::move(sysfs)) {}
  // Valid until the next Clear(); a failed read is tried again next time.
  [[nodiscard]] Result<const std::vector<int>*> Get(int node);
  void Clear() { cpus_.clear(); }

 private:
  std::string sysfs_;
  std::map<int, std::vector<int>> cpus_;
};

// CPUs of <procfs>/irq/<irq>/smp_affinity_list.
[[nodiscard]] Result<std::vector<int>> ReadIrqAffinity(
    const std::string& procfs, int irq);

struct IrqPlacement {
  int irqs = 0;      // MSI/MSI-X vectors of the device
  int checked = 0;   // of those, whose affinity could be read
  int off_node = 0;  // of those checked, allowed on a CPU outside the node
  std::vector<std::string> errors;  // one per unreadable affinity
};

// Counts the device's IRQs whose affinity includes CPUs outside node_cpus.
[[nodiscard]] IrqPlacement CheckIrqPlacement(const std::string& procfs,
                                             const std::vector<int>& irqs,
                                             const std::vector<int>& node_cpus);

struct EcnSetting {
  int priority = 0;
  std::string role;  // "np" (notification point) or "rp" (reaction point)
  bool enabled = false;
};

// <sysfs>/class/net/<netdev>/ecn/roce_{np,rp}/enable/<prio> (mlx5 with the
// MLNX_OFED driver). ENOENT when the driver has no such files.
[[nodiscard]] Result<std::vector<EcnSetting>> ReadRoceEcn(
    const std::string& sysfs, const std::string& netdev);

}  // namespace rnic
