#include "collectors/host/host_model.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <map>

#include "collectors/common/dir_fd.h"
#include "collectors/common/small_file.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic::host {
namespace {

using rnic::Fd;
using rnic::ListDir;

// Netdev names are looked up in the first GID entries only: populated
// entries come first, and an empty one fails (EINVAL) by design.
constexpr int kGidEntriesTried = 8;
// Ethernet ports without a netdev (EFA-like GIDs) are looked at again on
// every 16th check rather than every one.
constexpr std::uint64_t kNetdevRetryChecks = 16;
// Checks after a change on which an unresolved device is looked up at once.
constexpr int kEagerResolveChecks = 8;

// A small attribute file, whitespace around it removed; "" when unreadable.
std::string ReadAttr(int dirfd, const char* name) {
  char buf[256];
  const long n = ReadSmallFile(dirfd, name, buf, sizeof(buf));
  if (n <= 0) return {};
  return std::string(sysfs::TrimValue(std::string_view(buf, n)));
}

std::string_view Basename(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The deepest PCI function on the resolved path of `rel` under `dirfd`
// (.../0000:3b:00.0/mlx5_core.rdma.0 -> 0000:3b:00.0). "" if none.
std::string PciOf(int dirfd, const std::string& dir_path, const char* rel) {
  char link[PATH_MAX];
  const ssize_t ln = ::readlinkat(dirfd, rel, link, sizeof(link) - 1);
  if (ln <= 0) return {};
  const std::string_view target(link, static_cast<std::size_t>(ln));
  if (sysfs::IsPciAddress(Basename(target))) {
    return std::string(Basename(target));
  }
  // An auxiliary or platform device: look for its PCI ancestor on the
  // resolved path; a dangling link (a partial fixture, a device going away)
  // may still name the function in its text.
  const std::string path = dir_path + "/" + rel;
  std::string found;
  char* real = ::realpath(path.c_str(), nullptr);
  std::string_view rest = real ? std::string_view(real) : target;
  while (!rest.empty()) {
    const std::string_view base = Basename(rest);
    if (sysfs::IsPciAddress(base)) {
      found = std::string(base);
      break;
    }
    const auto slash = rest.rfind('/');
    if (slash == std::string_view::npos) break;
    rest = rest.substr(0, slash);
  }
  std::free(real);
  return found;
}

bool SameIdentity(const Device& d, const struct ::stat& st) {
  return d.st_dev == st.st_dev && d.st_ino == st.st_ino &&
         d.st_ctim.tv_sec == st.st_ctim.tv_sec &&
         d.st_ctim.tv_nsec == st.st_ctim.tv_nsec;
}

bool SameFacts(const Device& a, const Device& b) {
  if (a.ports.size() != b.ports.size()) return false;
  for (std::size_t i = 0; i < a.ports.size(); ++i) {
    const Port& p = a.ports[i];
    const Port& q = b.ports[i];
    if (p.number != q.number || p.link_layer != q.link_layer ||
        p.netdev != q.netdev || p.netdev_visible != q.netdev_visible) {
      return false;
    }
  }
  return a.node_type == b.node_type && a.fw_ver == b.fw_ver &&
         a.board_id == b.board_id && a.hca_type == b.hca_type &&
         a.node_guid == b.node_guid && a.sys_image_guid == b.sys_image_guid &&
         a.driver == b.driver && a.pci_address == b.pci_address &&
         a.pci_root_bus == b.pci_root_bus && a.numa_node == b.numa_node &&
         a.parent == b.parent && a.parent_pci_address == b.parent_pci_address &&
         a.pf_pci_address == b.pf_pci_address && a.irqs == b.irqs;
}

void Label(Device& d) {
  d.labels = LabelSet::Make({{"device", d.name}});
  for (Port& p : d.ports) {
    p.labels = LabelSet::Make({{"device", d.name}, {"port", p.label}});
  }
}

}  // namespace

const Port* Device::FindPort(std::uint32_t number) const {
  for (const Port& p : ports) {
    if (p.number == number) return &p;
  }
  return nullptr;
}

std::shared_ptr<const Device> Snapshot::FindShared(
    std::string_view name) const {
  auto it = std::lower_bound(
      devices.begin(), devices.end(), name,
      [](const auto& d, std::string_view n) { return d->name < n; });
  return it != devices.end() && (*it)->name == name ? *it : nullptr;
}

const Device* Snapshot::Find(std::string_view name) const {
  auto it = std::lower_bound(
      devices.begin(), devices.end(), name,
      [](const auto& d, std::string_view n) { return d->name < n; });
  return it != devices.end() && (*it)->name == name ? it->get() : nullptr;
}

const Device* Snapshot::FindIndex(std::uint32_t index) const {
  for (const auto& d : devices) {
    if (d->has_index && d->index == index) return d.get();
  }
  return nullptr;
}

const Device* Snapshot::FindPci(std::string_view pci) const {
  if (pci.empty()) return nullptr;
  const Device* via_parent = nullptr;
  for (const auto& d : devices) {
    if (d->pci_address == pci) return d.get();
    if (!via_parent && d->parent_pci_address == pci) via_parent = d.get();
  }
  return via_parent;
}

std::string FindPortNetdev(int devfd, const std::string& port_dir,
                           const std::string& parent) {
  for (int i = 0; i < kGidEntriesTried; ++i) {
    char rel[96];
    auto [end, ec] = std::to_chars(rel, rel + sizeof(rel) - 1, i);
    (void)ec;
    *end = '\0';
    const std::string path = port_dir + "/gid_attrs/ndevs/" + rel;
    char buf[64];
    const long n = ReadSmallFile(devfd, path.c_str(), buf, sizeof(buf));
    if (n == -ENOENT) break;  // no GID table at all
    if (n > 0) {
      const std::string_view v = sysfs::TrimValue(std::string_view(buf, n));
      if (!v.empty()) return std::string(v);
    }
  }
  if (!parent.empty()) return parent;
  auto names = ListDirectory(devfd, "device/net");
  if (!names.ok() || names->empty()) return {};
  return names->front();
}

HostModel::HostModel(Options options)
    : sysfs_(std::move(options.sysfs)),
      class_dir_(sysfs_ + "/class/infiniband"),
      net_dir_(sysfs_ + "/class/net"),
      netlink_(std::move(options.netlink)) {}

std::shared_ptr<Device> HostModel::ReadDevice(int classfd,
                                              const std::string& name,
                                              const struct ::stat& st) {
  Fd devfd(::openat(classfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!devfd.ok()) return nullptr;  // vanished between listing and open
  ++stats_.device_reads;
  auto d = std::make_shared<Device>();
  d->name = name;
  d->st_dev = st.st_dev;
  d->st_ino = st.st_ino;
  d->st_ctim = st.st_ctim;
  const std::string node_type = ReadAttr(devfd.get(), "node_type");
  if (auto nn = sysfs::ParseNumberedName(node_type)) {
    d->node_type = std::string(nn->name);
  } else {
    d->node_type = node_type;
  }
  d->fw_ver = ReadAttr(devfd.get(), "fw_ver");
  d->board_id = ReadAttr(devfd.get(), "board_id");
  d->hca_type = ReadAttr(devfd.get(), "hca_type");
  d->node_guid = ReadAttr(devfd.get(), "node_guid");
  d->sys_image_guid = ReadAttr(devfd.get(), "sys_image_guid");
  d->parent = ReadAttr(devfd.get(), "parent");

  const std::string dev_path = class_dir_ + "/" + name;
  char link[PATH_MAX];
  const ssize_t ln =
      ::readlinkat(devfd.get(), "device", link, sizeof(link) - 1);
  if (ln > 0) {
    d->pci_address = PciOf(devfd.get(), dev_path, "device");
    d->pf_pci_address = PciOf(devfd.get(), dev_path, "device/physfn");
    if (char* real = ::realpath((dev_path + "/device").c_str(), nullptr)) {
      d->pci_root_bus = std::string(sysfs::PciRootBus(real));
      std::free(real);
    }
    const ssize_t dn =
        ::readlinkat(devfd.get(), "device/driver", link, sizeof(link) - 1);
    if (dn > 0) {
      d->driver = std::string(
          Basename(std::string_view(link, static_cast<std::size_t>(dn))));
    }
    d->numa_node = ReadAttr(devfd.get(), "device/numa_node");
    int numa = 0;
    auto [p, ec] = std::from_chars(
        d->numa_node.data(), d->numa_node.data() + d->numa_node.size(), numa);
    if (ec == std::errc() && p == d->numa_node.data() + d->numa_node.size()) {
      d->numa = numa;
    }
    Fd irqs(::openat(devfd.get(), "device/msi_irqs",
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (irqs.ok()) {
      d->irqs_known = true;
      ListDir(irqs.get(), [&](std::string_view n, unsigned char) {
        int irq = 0;
        auto [q, e] = std::from_chars(n.data(), n.data() + n.size(), irq);
        if (e == std::errc() && q == n.data() + n.size())
          d->irqs.push_back(irq);
      });
      std::sort(d->irqs.begin(), d->irqs.end());
    }
  }
  if (!d->parent.empty()) {
    const std::string net_dir = sysfs_ + "/class/net/" + d->parent;
    Fd netfd(::open(net_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (netfd.ok()) {
      d->parent_pci_address = PciOf(netfd.get(), net_dir, "device");
    }
  }

  Fd portsfd(
      ::openat(devfd.get(), "ports", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (portsfd.ok()) {
    ListDir(portsfd.get(), [&](std::string_view n, unsigned char) {
      std::uint32_t num = 0;
      auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), num);
      if (ec != std::errc() || p != n.data() + n.size()) return;
      Port port;
      port.number = num;
      port.label = std::string(n);
      port.dir = "ports/" + port.label;
      d->ports.push_back(std::move(port));
    });
  }
  std::sort(d->ports.begin(), d->ports.end(),
            [](const Port& a, const Port& b) { return a.number < b.number; });
  for (Port& p : d->ports) {
    p.link_layer = ReadAttr(devfd.get(), (p.dir + "/link_layer").c_str());
    p.netdev = p.link_layer == "InfiniBand"
                   ? d->parent
                   : FindPortNetdev(devfd.get(), p.dir, d->parent);
    if (!p.netdev.empty()) {
      struct ::stat nst {};
      const std::string net = sysfs_ + "/class/net/" + p.netdev;
      p.netdev_visible = ::stat(net.c_str(), &nst) == 0;
    }
  }
  Label(*d);
  spdlog::debug(
      "collector=host msg=\"device read\" device={} ports={} driver=\"{}\" "
      "pci=\"{}\"",
      d->name, d->ports.size(), d->driver, d->pci_address);
  return d;
}

bool HostModel::NetdevsStillThere(const Device& dev, int netfd) const {
  for (const Port& p : dev.ports) {
    if (p.link_layer == "InfiniBand") continue;
    if (p.netdev.empty() || !p.netdev_visible) {
      // Looked at again now and then: a netdev may be bound (or moved into
      // this namespace) later.
      if (checks_since_resolve_ % kNetdevRetryChecks == 0) return false;
      continue;
    }
    if (on_sysfs_.value_or(false)) {
      if (!net_listed_) return false;
      if (!std::binary_search(net_names_.begin(), net_names_.end(), p.netdev)) {
        return false;  // renamed or gone
      }
      continue;
    }
    struct stat st {};
    if (::fstatat(netfd, p.netdev.c_str(), &st, 0) != 0) {
      return false;  // renamed or gone
    }
  }
  return true;
}

void HostModel::ListNetdevs(int netfd) {
  std::size_t n = 0;
  if (netfd >= 0) {
    ListDir(netfd, [&](std::string_view name, unsigned char) {
      if (n == net_names_.size()) net_names_.emplace_back();
      net_names_[n++].assign(name);  // a reused string keeps its capacity
    });
  }
  net_names_.resize(n);
  std::sort(net_names_.begin(), net_names_.end());
  net_listed_ = netfd >= 0;
}

std::shared_ptr<const Snapshot> HostModel::Refresh() {
  std::lock_guard<std::mutex> g(mu_);
  ++stats_.checks;
  ++checks_since_resolve_;
  const std::shared_ptr<const Snapshot> old = current_;
  std::vector<std::shared_ptr<const Device>> devices;
  bool changed = !old;

  Fd classfd(::open(class_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const bool have_sysfs = classfd.ok();
  if (have_sysfs) {
    if (!on_sysfs_) {
      struct statfs fs {};
      on_sysfs_ = ::fstatfs(classfd.get(), &fs) == 0 &&
                  static_cast<unsigned long>(fs.f_type) == SYSFS_MAGIC;
    }
    // On sysfs a device's identity is the inode of its class/infiniband
    // entry, which the listing gives: kernfs gives every new node a new
    // inode number (a cyclic 32-bit id plus a generation), so a device
    // registered again, also under the same name, has another one, and a
    // rename keeps it (under another name: read again). Elsewhere (fixture
    // trees, whose file systems reuse inode numbers) the entry's target is
    // stat'ed for its inode and ctime.
    const bool by_dirent = *on_sysfs_;
    // Without class/net every netdev check fails (EBADF), as before. On
    // sysfs one listing of it serves every netdev check.
    const Fd netfd(::open(net_dir_.c_str(), (by_dirent ? O_RDONLY : O_PATH) |
                                                O_DIRECTORY | O_CLOEXEC));
    net_listed_ = false;
    if (by_dirent) ListNetdevs(netfd.get());
    std::size_t count = 0;
    ListDir(classfd.get(), [&](std::string_view n, unsigned char, ino64_t ino) {
      if (count == entries_.size()) entries_.emplace_back();
      entries_[count].first.assign(n);  // reused strings keep their capacity
      entries_[count++].second = ino;
    });
    entries_.resize(count);
    std::sort(entries_.begin(), entries_.end());
    for (const auto& [name, ino] : entries_) {
      struct stat st {};
      if (by_dirent) {
        st.st_ino = static_cast<ino_t>(ino);
      } else if (::fstatat(classfd.get(), name.c_str(), &st, 0) != 0) {
        continue;
      }
      const std::shared_ptr<const Device> prev =
          old ? old->FindShared(name) : nullptr;
      const bool invalid =
          invalid_all_ ||
          std::find(invalid_.begin(), invalid_.end(), name) != invalid_.end();
      if (prev && prev->in_sysfs && SameIdentity(*prev, st) && !invalid &&
          NetdevsStillThere(*prev, netfd.get())) {
        devices.push_back(prev);
        continue;
      }
      auto d = ReadDevice(classfd.get(), name, st);
      if (!d) continue;
      // The same registration keeps its instance (a netdev rename is not a
      // new device); a new inode or ctime is a new one.
      d->instance = prev && prev->in_sysfs && SameIdentity(*prev, st)
                        ? prev->instance
                        : next_instance_++;
      if (prev && d->instance == prev->instance && SameFacts(*d, *prev)) {
        // Looked at again (a netdev check) and nothing differs.
        devices.push_back(prev);
        continue;
      }
      const bool keep = prev && d->instance == prev->instance;
      d->index = keep ? prev->index : 0;
      d->has_index = keep && prev->has_index;
      d->netlink_ports = prev ? prev->netlink_ports : 0;
      changed = true;
      devices.push_back(std::move(d));
    }
    if (old && old->devices.size() != devices.size()) changed = true;
  }
  invalid_.clear();
  invalid_all_ = false;

  // Netlink indices: looked up when something changed, on every check when
  // netlink is all there is, and now and then while a device's index is
  // unknown (ib_core loaded later, or a device netlink does not show). Just
  // after a change, at every check for a few: a device is in sysfs a moment
  // before RDMA netlink lists it (ib_register_device marks it registered
  // last), and a check in between must not leave it without its counters
  // for kNetdevRetryChecks scrapes.
  const bool some_unresolved =
      std::any_of(devices.begin(), devices.end(),
                  [](const auto& d) { return !d->has_index; });
  const bool unresolved =
      some_unresolved && (eager_resolve_checks_ > 0 ||
                          checks_since_resolve_ % kNetdevRetryChecks == 0);
  if (eager_resolve_checks_ > 0) --eager_resolve_checks_;
  if (changed) eager_resolve_checks_ = kEagerResolveChecks;
  if (netlink_ && (changed || unresolved || !have_sysfs)) {
    ++stats_.netlink_dumps;
    auto listed = netlink_();
    if (listed.ok()) {
      std::map<std::string, const NetlinkDevice*, std::less<>> by_name;
      for (const auto& nd : *listed) by_name.emplace(nd.name, &nd);
      for (auto& d : devices) {
        auto it = by_name.find(d->name);
        const bool known = it != by_name.end();
        const std::uint32_t idx = known ? it->second->index : 0;
        const std::uint32_t np = known ? it->second->num_ports : 0;
        if (known != d->has_index || idx != d->index ||
            np != d->netlink_ports) {
          auto copy = std::make_shared<Device>(*d);
          copy->has_index = known;
          copy->index = idx;
          copy->netlink_ports = np;
          d = std::move(copy);
          changed = true;
        }
        // Read while it was being registered (its ports/ not there yet):
        // read again at the next check.
        if (d->in_sysfs && d->ports.empty() && np > 0) {
          invalid_.push_back(d->name);
        }
      }
      if (!have_sysfs) {
        for (const auto& nd : *listed) {
          const std::shared_ptr<const Device> prev =
              old ? old->FindShared(nd.name) : nullptr;
          if (prev && !prev->in_sysfs && prev->index == nd.index &&
              prev->netlink_ports == nd.num_ports) {
            devices.push_back(prev);
            continue;
          }
          auto d = std::make_shared<Device>();
          d->name = nd.name;
          d->index = nd.index;
          d->has_index = true;
          d->netlink_ports = nd.num_ports;
          d->in_sysfs = false;
          d->instance = next_instance_++;
          for (std::uint32_t p = 1; p <= nd.num_ports; ++p) {
            Port port;
            port.number = p;
            port.label = std::to_string(p);
            port.dir = "ports/" + port.label;
            d->ports.push_back(std::move(port));
          }
          Label(*d);
          devices.push_back(std::move(d));
          changed = true;
        }
        std::sort(
            devices.begin(), devices.end(),
            [](const auto& a, const auto& b) { return a->name < b->name; });
        if (old && old->devices.size() != devices.size()) changed = true;
      }
    } else if (!have_sysfs) {
      // Netlink is all there is and it failed: keep what we had.
      return old ? old : (current_ = std::make_shared<Snapshot>());
    }
  }

  if (!changed && old) return old;
  auto snap = std::make_shared<Snapshot>();
  snap->generation = old ? old->generation + 1 : 1;
  snap->devices = std::move(devices);
  current_ = snap;
  return current_;
}

std::shared_ptr<const Snapshot> HostModel::Current() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (current_) return current_;
  }
  return Refresh();
}

void HostModel::Invalidate(std::string_view device) {
  std::lock_guard<std::mutex> g(mu_);
  if (device.empty()) {
    invalid_all_ = true;
  } else {
    invalid_.emplace_back(device);
  }
}

HostModel::Stats HostModel::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return stats_;
}

}  // namespace rnic::host
