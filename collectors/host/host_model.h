// The host model: the one place that discovers RDMA devices and ports and
// what they sit on (link layer, netdev, PCI function, driver, NUMA node,
// IRQs, parent netdev, RDMA netlink index). Every collector reads it; none
// walks /sys/class/infiniband for topology on its own.
//
// Refresh() is cheap when nothing changed: one listing of class/infiniband,
// one fstatat per device (the device directory's inode and ctime change
// whenever a device is registered again, also under the same name) and one
// fstatat per netdev of an Ethernet port (a netdev renamed or gone). Only
// what changed is read again; then the RDMA netlink device dump (if a lister
// is given) maps names to netlink indices. Without class/infiniband (a
// container without /sys of its own, or tests of the netlink collectors)
// the netlink dump alone describes the devices, and is the per-refresh check.
//
// Snapshots are immutable and shared: a collector keeps the shared_ptr for
// the length of its scrape while the next refresh builds a new one.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/metrics/label_set.h"

namespace rnic::host {

struct Port {
  std::uint32_t number = 0;
  std::string label;       // "1": the port label value
  std::string dir;         // "ports/1", relative to the device directory
  std::string link_layer;  // "InfiniBand", "Ethernet" (RoCE, iWARP), ""
  std::string netdev;      // the netdev carrying the port, "" when none
  // /sys/class/net/<netdev> existed when the port was read: its going away
  // means a rename. (A netdev in another network namespace never shows.)
  bool netdev_visible = false;
  LabelSetPtr labels;  // device, port
  [[nodiscard]] bool ethernet() const { return link_layer == "Ethernet"; }
};

struct Device {
  std::string name;
  // New for every registration of the device, also under the same name:
  // per-device state (wrap tracking, cached file lists) is keyed by it.
  std::uint64_t instance = 0;
  std::uint32_t index = 0;  // RDMA netlink device index (the first is 0)
  bool has_index = false;   // netlink named the device
  std::uint32_t netlink_ports = 0;  // port count netlink reports
  // Static attributes of this instance, as sysfs prints them.
  std::string node_type;  // name part of node_type: "CA", "RNIC", ...
  std::string fw_ver;
  std::string board_id;
  std::string hca_type;
  std::string node_guid;
  std::string sys_image_guid;
  std::string driver;        // basename of device/driver
  std::string pci_address;   // PCI function of the device (or its ancestor)
  std::string pci_root_bus;  // root bus of that hierarchy ("0000:80"), or ""
  std::string numa_node;     // device/numa_node as read ("" if absent)
  std::optional<int> numa;   // the same, parsed
  std::string parent;        // netdev of software devices (rxe, siw)
  std::string parent_pci_address;  // PCI function of `parent`, if any
  std::string pf_pci_address;      // PF of a VF (device/physfn); "" on a PF
  std::vector<int> irqs;           // MSI/MSI-X vectors (device/msi_irqs)
  bool irqs_known = false;         // msi_irqs was readable
  std::vector<Port> ports;         // sorted by number
  LabelSetPtr labels;              // device
  bool in_sysfs = true;            // false: known from RDMA netlink only

  [[nodiscard]] const Port* FindPort(std::uint32_t number) const;
  // Identity in sysfs.
  dev_t st_dev = 0;
  ino_t st_ino = 0;
  timespec st_ctim{};
};

struct Snapshot {
  // Changes whenever anything in the model changed; collectors rebuild their
  // per-port caches only then.
  std::uint64_t generation = 0;
  std::vector<std::shared_ptr<const Device>> devices;  // sorted by name
  [[nodiscard]] const Device* Find(std::string_view name) const;
  [[nodiscard]] std::shared_ptr<const Device> FindShared(
      std::string_view name) const;
  [[nodiscard]] const Device* FindIndex(std::uint32_t index) const;
  // The RDMA device on a PCI function: the one whose own `device` link
  // resolves there, else one whose parent netdev sits there (rxe on a PCI
  // NIC). Its driver is the one that logs about the function.
  [[nodiscard]] const Device* FindPci(std::string_view pci) const;
};

// One RDMA_NLDEV_CMD_GET dump: what netlink calls each device.
struct NetlinkDevice {
  std::uint32_t index = 0;
  std::string name;
  std::uint32_t num_ports = 0;
};
using NetlinkDeviceLister = std::function<Result<std::vector<NetlinkDevice>>()>;

class HostModel {
 public:
  struct Options {
    std::string sysfs = "/sys";
    NetlinkDeviceLister netlink;  // optional
  };
  explicit HostModel(Options options);
  HostModel(const HostModel&) = delete;
  HostModel& operator=(const HostModel&) = delete;

  // Checks for changes and returns the current snapshot. Thread-safe; the
  // runner calls it once before each scrape.
  std::shared_ptr<const Snapshot> Refresh();
  // The snapshot of the last Refresh() (refreshing first if there was none).
  [[nodiscard]] std::shared_ptr<const Snapshot> Current();
  // A collector saw `device` vanish or misbehave (ENODEV on its index, a
  // file gone): the next Refresh() reads it again. Empty: everything.
  void Invalidate(std::string_view device = {});

  struct Stats {
    std::uint64_t checks = 0;         // Refresh() calls
    std::uint64_t device_reads = 0;   // devices read from sysfs
    std::uint64_t netlink_dumps = 0;  // lister calls
  };
  [[nodiscard]] Stats stats() const;
  [[nodiscard]] const std::string& sysfs_root() const { return sysfs_; }

 private:
  std::shared_ptr<Device> ReadDevice(int classfd, const std::string& name,
                                     const struct ::stat& st);
  // `netfd`: <sysfs>/class/net, opened once per check, so each netdev costs
  // a lookup of its own name only; on sysfs, the names of one listing of it
  // (sorted) instead.
  [[nodiscard]] bool NetdevsStillThere(const Device& dev, int netfd) const;
  // The names of <sysfs>/class/net into net_names_, sorted.
  void ListNetdevs(int netfd);

  std::string sysfs_;
  std::string class_dir_;
  std::string net_dir_;
  NetlinkDeviceLister netlink_;
  mutable std::mutex mu_;
  std::shared_ptr<const Snapshot> current_;
  std::vector<std::string> invalid_;  // devices to read again
  bool invalid_all_ = false;
  std::uint64_t next_instance_ = 1;
  std::uint64_t checks_since_resolve_ = 0;
  int eager_resolve_checks_ = 0;  // see Refresh()
  // class/infiniband is on sysfs (kernfs), decided at its first opening:
  // see Refresh(). Unset until then.
  std::optional<bool> on_sysfs_;
  // One check's listing of class/infiniband (name, inode), reused.
  std::vector<std::pair<std::string, ino64_t>> entries_;
  std::vector<std::string> net_names_;  // class/net on sysfs, reused
  bool net_listed_ = false;             // net_names_ is this check's
  Stats stats_;
};

// Netdev of a port, the one rule of the project: the first non-empty
// gid_attrs/ndevs/<i> among the first entries (RoCE and iWARP ports
// populate the default GIDs first), else the device's `parent` (rxe, siw),
// else the first entry of device/net/ (the PCI function's netdev).
// `port_dir` is relative to `devfd`.
[[nodiscard]] std::string FindPortNetdev(int devfd, const std::string& port_dir,
                                         const std::string& parent);

}  // namespace rnic::host
