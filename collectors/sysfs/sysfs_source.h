// SysfsSource: reads the values under /sys/class/infiniband into plain
// structs. Knows nothing of Prometheus. Which devices and ports exist, and
// what they sit on, comes from the host model (collectors/host): this
// source reads only what changes between scrapes.
//
// Cost model: per scrape one pread() per attribute or counter file; directories
// are opened only when a file must be opened. Files stay open across scrapes: a
// read at offset 0 makes sysfs call the attribute's show() again, so one
// pread() replaces open/read/close (3 syscalls, and a kernfs buffer
// allocation). The number of descriptors kept is bounded (see CachedFd); beyond
// it files are opened per read. sysfs has no batch read; RDMA netlink is the
// batched path. Directory listings of a device (ports, counters/,
// counters_ext/, hw_counters/) and its static attributes (GUIDs, firmware,
// driver, PCI address, NUMA node) are cached per device *instance*: the
// instance is the inode and ctime of the device directory, which the kernel
// changes whenever a device is removed and registered again (also under the
// same name), and a file that vanishes mid-scrape invalidates the cache.
//
// Unreadable values are never turned into numbers: "N/A (no PMA)", and reads
// failing with EINVAL/EACCES/EPERM/EOPNOTSUPP/EISDIR, are remembered for the
// device instance (never read again: some of these reads cost a firmware
// command and a kernel log line each) and logged once. Other errors (EIO,
// EAGAIN, ...) skip the value for one scrape and are logged once per file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectors/common/cached_fd.h"
#include "collectors/common/result.h"
#include "collectors/host/host_model.h"
#include "collectors/host/model_view.h"

namespace rnic::sysfs {

// Why a file gave no value; kNone when it did.
enum class Unreadable : std::uint8_t {
  kNone,
  kNotAvailable,  // "N/A (no PMA)"
  kMalformed,     // not a decimal number
  kError,         // EINVAL, EACCES, EPERM, EOPNOTSUPP, EISDIR, ENOSYS...
  kTransient,     // EIO, EAGAIN, ETIMEDOUT...: retried next scrape
};

struct CounterFile {
  std::string name;  // kernel file name
  CachedFd fd;
  // This scrape.
  bool has_value = false;
  std::uint64_t value = 0;
  // Remembered for the device instance.
  Unreadable unreadable = Unreadable::kNone;
  int error = 0;  // errno of the last failure, 0 if none
  bool skip = false;
  bool logged = false;
};

struct CounterDir {
  bool present = false;
  std::vector<CounterFile> files;  // sorted by name; hw "lifespan" excluded
  bool has_lifespan = false;
  std::optional<std::uint64_t> lifespan_ms;  // this scrape
  CachedFd lifespan_fd;
};

struct PortSnapshot {
  std::uint32_t number = 0;
  // Link layer, netdev, labels. Valid while the owning device's model lives.
  const host::Port* model = nullptr;
  // This scrape.
  std::optional<std::uint32_t> state;       // 4 = ACTIVE
  std::optional<std::uint32_t> phys_state;  // 5 = LinkUp
  std::optional<double> rate_bytes_per_second;
  std::optional<std::uint64_t> lid;  // only when present and non-zero
  CounterDir counters;               // PMA PortCounters (ports/N/counters)
  CounterDir counters_ext;           // pre-4.5 64-bit PMA counters
  CounterDir hw_counters;            // driver counters (ports/N/hw_counters)
  // Internal.
  std::string dir;   // "ports/1", relative to the device directory
  std::string path;  // "mlx5_0/ports/1", relative to class/infiniband
  std::uint8_t logged_attrs = 0;
  // state, phys_state, rate, lid
  CachedFd attr_fds[4];
};

struct DeviceSnapshot {
  std::string name;
  // Changes whenever the device is re-created, or its files were found
  // changed; lets callers keep per-device state (wrap tracking) keyed by name
  // and notice a new instance.
  std::uint64_t instance = 0;
  // Static attributes and ports as the host model knows them.
  std::shared_ptr<const host::Device> model;
  CounterDir hw_counters;           // device-level hw_counters/
  std::vector<PortSnapshot> ports;  // sorted by number
  // Internal.
  std::uint64_t model_instance = 0;
  bool stale = false;
};

struct ReadOptions {
  bool port_state = true;   // read state and phys_state
  bool hw_counters = true;  // read ports' hw_counters/ values (lifespan always)
  // Device-level hw_counters/ are read even when netlink_stat has the port
  // counters: STAT_GET reports per port only.
  bool device_hw_counters = true;
};

// Which devices to read at all (excluded devices are never touched, so a
// device whose reads log kernel errors can be silenced).
using DevicePredicate = std::function<bool(std::string_view name)>;

// The kernel boundary: reads file `name` relative to the directory fd
// `dirfd` into buf. `dir` is that directory's path relative to
// class/infiniband ("mlx5_0" or "mlx5_0/ports/1"), for fakes and logs.
// Returns the number of bytes read or -errno.
using ReadFileFn =
    std::function<long(int dirfd, std::string_view dir, const char* name,
                       char* buf, std::size_t cap)>;

// open/read/close, for tests that wrap the boundary.
long ReadFileAt(int dirfd, std::string_view dir, const char* name, char* buf,
                std::size_t cap);

// A directory opened (O_PATH) only when a read needs it (most reads go
// through kept descriptors and need no directory at all): `rel` of the
// parent LazyDir, or of `parent_fd` (AT_FDCWD: a path) without one.
class LazyDir {
 public:
  LazyDir(LazyDir* parent, int parent_fd, const char* rel)
      : parent_(parent), parent_fd_(parent_fd), rel_(rel) {}
  ~LazyDir();
  LazyDir(const LazyDir&) = delete;
  LazyDir& operator=(const LazyDir&) = delete;
  // The directory fd (O_PATH), or -1 with errno set.
  int get();

 private:
  LazyDir* parent_;
  int parent_fd_;
  const char* rel_;
  int fd_ = -1;
  int err_ = 0;
};

class SysfsSource {
 public:
  // `sysfs_root` is the mount point of sysfs ("/sys", or a fixture tree).
  // Without `read`, files are read through kept-open descriptors; with it,
  // every read goes through `read` (tests inject failures there). Without
  // `model`, the source keeps a host model of its own and refreshes it in
  // Read(); with the exporter's shared one, it reads its current snapshot.
  explicit SysfsSource(std::string sysfs_root, ReadFileFn read = nullptr,
                       std::shared_ptr<host::HostModel> model = nullptr);
  ~SysfsSource();
  SysfsSource(const SysfsSource&) = delete;
  SysfsSource& operator=(const SysfsSource&) = delete;

  // Reads every accepted device of the model. A missing class/infiniband is
  // not an error (no RDMA devices).
  [[nodiscard]] Status Read(const ReadOptions& options,
                            const DevicePredicate& accept = nullptr);
  [[nodiscard]] host::HostModel& model() { return model_.model(); }

  // Devices of the last Read(), sorted by name; valid until the next Read().
  [[nodiscard]] const std::vector<DeviceSnapshot*>& devices() const {
    return current_;
  }

  const std::string& class_dir() const { return class_dir_; }

 private:
  void Rebuild(DeviceSnapshot& dev, int devfd);
  void ReadDevice(DeviceSnapshot& dev, LazyDir& devdir,
                  const ReadOptions& options);
  void ReadPort(DeviceSnapshot& dev, PortSnapshot& port, LazyDir& portdir,
                const ReadOptions& options);
  void ReadCounterDir(DeviceSnapshot& dev, std::string_view parent_dir,
                      LazyDir& parent, std::string_view sub, CounterDir& cdir,
                      bool values);
  long Read(int dirfd, std::string_view dir, const char* name, char* buf,
            std::size_t cap) const;
  long ReadCached(CachedFd& cached, LazyDir& dir, std::string_view dir_path,
                  const char* name, char* buf, std::size_t cap) const;
  std::string PathOf(std::string_view dir, std::string_view name) const;

  std::string root_;
  std::string class_dir_;
  ReadFileFn read_;
  host::ModelView model_;
  std::unordered_map<std::string, std::unique_ptr<DeviceSnapshot>> cache_;
  std::vector<DeviceSnapshot*> current_;
  std::uint64_t next_instance_ = 1;
};

}  // namespace rnic::sysfs
