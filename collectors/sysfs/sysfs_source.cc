#include "collectors/sysfs/sysfs_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "collectors/common/dir_fd.h"
#include "collectors/common/small_file.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic::sysfs {
namespace {

// Attribute values are short; counters are at most 20 digits.
constexpr std::size_t kValueBuf = 256;

using rnic::Fd;
using rnic::ListDir;

int OpenDirAt(int parent, const char* rel, bool listable) {
  const int flags = O_DIRECTORY | O_CLOEXEC | (listable ? O_RDONLY : O_PATH);
  return ::openat(parent, rel, flags);
}

enum class Failure { kRemember, kTransient, kVanished };

Failure Classify(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
      return Failure::kVanished;
    case EINVAL:
    case EACCES:
    case EPERM:
    case EOPNOTSUPP:
    case EISDIR:
    case ENOSYS:
    case ENODATA:
      return Failure::kRemember;
    default:
      return Failure::kTransient;
  }
}

// Joins "a/b" into a stack buffer; false if it does not fit.
bool JoinRel(char (&out)[PATH_MAX], std::string_view a, std::string_view b) {
  const std::size_t need = a.size() + (a.empty() ? 0 : 1) + b.size() + 1;
  if (need > sizeof(out)) return false;
  char* p = out;
  if (!a.empty()) {
    std::memcpy(p, a.data(), a.size());
    p += a.size();
    *p++ = '/';
  }
  std::memcpy(p, b.data(), b.size());
  p += b.size();
  *p = '\0';
  return true;
}

const char* ReasonText(Unreadable u, int err) {
  switch (u) {
    case Unreadable::kNotAvailable:
      return "value reads \"N/A\" (no PMA)";
    case Unreadable::kMalformed:
      return "value is not a number";
    case Unreadable::kError:
    case Unreadable::kTransient:
      return std::strerror(err);
    case Unreadable::kNone:
      break;
  }
  return "";
}

// Port attributes whose read failures are logged once (bits of
// PortSnapshot::logged_attrs).
enum AttrBit : std::uint8_t {
  kAttrState = 2,
  kAttrPhysState = 4,
  kAttrRate = 8,
  kAttrLid = 16,
};

}  // namespace

long ReadFileAt(int dirfd, std::string_view /*dir*/, const char* name,
                char* buf, std::size_t cap) {
  return ReadSmallFile(dirfd, name, buf, cap);
}

SysfsSource::SysfsSource(std::string sysfs_root, ReadFileFn read,
                         std::shared_ptr<host::HostModel> model)
    : root_(std::move(sysfs_root)),
      class_dir_(root_ + "/class/infiniband"),
      read_(std::move(read)),
      model_(std::move(model), host::HostModel::Options{root_}) {
  (void)CachedFdBudget();  // raise RLIMIT_NOFILE early, once
}

SysfsSource::~SysfsSource() = default;

long SysfsSource::Read(int dirfd, std::string_view dir, const char* name,
                       char* buf, std::size_t cap) const {
  if (read_) return read_(dirfd, dir, name, buf, cap);
  return ReadFileAt(dirfd, dir, name, buf, cap);
}

LazyDir::~LazyDir() {
  if (fd_ >= 0) ::close(fd_);
}

int LazyDir::get() {
  if (fd_ < 0 && err_ == 0) {
    const int base = parent_ ? parent_->get() : parent_fd_;
    if (base < 0 && base != AT_FDCWD) {
      err_ = errno;
    } else {
      fd_ = OpenDirAt(base, rel_, /*listable=*/false);
      if (fd_ < 0) err_ = errno;
    }
  }
  if (fd_ < 0) errno = err_;
  return fd_;
}

long SysfsSource::ReadCached(CachedFd& cached, LazyDir& dir,
                             std::string_view dir_path, const char* name,
                             char* buf, std::size_t cap) const {
  if (read_) {
    const int dirfd = dir.get();
    if (dirfd < 0) return -errno;
    return read_(dirfd, dir_path, name, buf, cap);
  }
  if (cached.get() >= 0) {
    const long n = ReadAt0(cached.get(), buf, cap);
    if (n >= 0) return n;
    cached.Close();  // reopened next time unless the caller gives up on it
    return n;
  }
  const int dirfd = dir.get();
  if (dirfd < 0) return -errno;
  return cached.OpenAndRead(dirfd, name, buf, cap);
}

std::string SysfsSource::PathOf(std::string_view dir,
                                std::string_view name) const {
  std::string p = class_dir_;
  if (!dir.empty()) p.append("/").append(dir);
  if (!name.empty()) p.append("/").append(name);
  return p;
}

Status SysfsSource::Read(const ReadOptions& options,
                         const DevicePredicate& accept) {
  current_.clear();
  const auto snap = model_.Get();
  std::unordered_map<std::string, std::unique_ptr<DeviceSnapshot>> next;
  next.reserve(snap->devices.size());
  // Opened only if a file is not held open yet: a steady scrape opens none.
  LazyDir classdir(nullptr, AT_FDCWD, class_dir_.c_str());
  for (const auto& mdev : snap->devices) {
    if (!mdev->in_sysfs) continue;
    const std::string& name = mdev->name;
    if (accept && !accept(name)) continue;
    LazyDir devdir(&classdir, -1, name.c_str());

    std::unique_ptr<DeviceSnapshot> dev;
    if (auto it = cache_.find(name); it != cache_.end()) {
      dev = std::move(it->second);
      cache_.erase(it);
    }
    if (!dev || dev->stale || dev->model_instance != mdev->instance ||
        dev->ports.size() != mdev->ports.size()) {
      // New device, a new registration of it, or its files changed under
      // us: list its counter directories again.
      if (dev && dev->stale) model_.model().Invalidate(name);
      dev = std::make_unique<DeviceSnapshot>();
      dev->name = name;
      dev->instance = next_instance_++;
      dev->model_instance = mdev->instance;
      dev->model = mdev;
      const int devfd = devdir.get();
      if (devfd < 0) continue;  // vanished since the model looked
      Rebuild(*dev, devfd);
    }
    if (dev->model != mdev) {
      // Same registration, facts looked at again (a netdev renamed).
      dev->model = mdev;
      for (std::size_t i = 0; i < dev->ports.size(); ++i) {
        dev->ports[i].model = &mdev->ports[i];
      }
    }
    ReadDevice(*dev, devdir, options);
    current_.push_back(dev.get());
    next.emplace(name, std::move(dev));
  }
  // Devices not seen (removed, renamed, excluded) are forgotten here.
  cache_ = std::move(next);
  return Status::Ok();
}

namespace {

// Lists a counter directory into `out` (sorted). A missing directory is
// normal (bnxt_re has no counters/, rxe no PMA at all).
void ListCounterDir(int parentfd, const char* sub, bool hw, CounterDir& out) {
  out = CounterDir{};
  Fd fd(OpenDirAt(parentfd, sub, /*listable=*/true));
  if (!fd.ok()) return;
  out.present = true;
  ListDir(fd.get(), [&](std::string_view name, unsigned char) {
    if (hw && name == "lifespan") {
      out.has_lifespan = true;
      return;
    }
    CounterFile f;
    f.name = std::string(name);
    out.files.push_back(std::move(f));
  });
  std::sort(out.files.begin(), out.files.end(),
            [](const CounterFile& a, const CounterFile& b) {
              return a.name < b.name;
            });
}

}  // namespace

void SysfsSource::Rebuild(DeviceSnapshot& dev, int devfd) {
  ListCounterDir(devfd, "hw_counters", /*hw=*/true, dev.hw_counters);

  dev.ports.resize(dev.model->ports.size());
  for (std::size_t i = 0; i < dev.ports.size(); ++i) {
    const host::Port& mp = dev.model->ports[i];
    PortSnapshot& p = dev.ports[i];
    p.number = mp.number;
    p.model = &mp;
    p.dir = mp.dir;
    p.path = dev.name + "/" + p.dir;
  }
  for (PortSnapshot& p : dev.ports) {
    Fd portfd(OpenDirAt(devfd, p.dir.c_str(), /*listable=*/false));
    if (!portfd.ok()) continue;
    ListCounterDir(portfd.get(), "counters", false, p.counters);
    ListCounterDir(portfd.get(), "counters_ext", false, p.counters_ext);
    ListCounterDir(portfd.get(), "hw_counters", true, p.hw_counters);
  }
}

void SysfsSource::ReadDevice(DeviceSnapshot& dev, LazyDir& devdir,
                             const ReadOptions& options) {
  ReadCounterDir(dev, dev.name, devdir, "hw_counters", dev.hw_counters,
                 options.device_hw_counters);
  for (PortSnapshot& port : dev.ports) {
    LazyDir portdir(&devdir, -1, port.dir.c_str());
    ReadPort(dev, port, portdir, options);
  }
}

void SysfsSource::ReadPort(DeviceSnapshot& dev, PortSnapshot& port,
                           LazyDir& portdir, const ReadOptions& options) {
  char buf[kValueBuf];
  // Reads one attribute; logs a failure once per port and attribute.
  auto read_attr = [&](const char* name, AttrBit bit,
                       CachedFd& cached) -> std::string_view {
    const long n =
        ReadCached(cached, portdir, port.path, name, buf, sizeof(buf));
    if (n >= 0) return TrimValue(std::string_view(buf, n));
    if (Classify(static_cast<int>(-n)) == Failure::kVanished) {
      dev.stale = true;
    } else if (!(port.logged_attrs & bit)) {
      port.logged_attrs |= bit;
      spdlog::warn("sysfs: {}: {} (not exported)", PathOf(port.path, name),
                   std::strerror(static_cast<int>(-n)));
    }
    return {};
  };

  port.state.reset();
  port.phys_state.reset();
  if (options.port_state) {
    if (auto nn = ParseNumberedName(
            read_attr("state", kAttrState, port.attr_fds[0]))) {
      port.state = nn->number;
    }
    if (auto nn = ParseNumberedName(
            read_attr("phys_state", kAttrPhysState, port.attr_fds[1]))) {
      port.phys_state = nn->number;
    }
  }
  const std::string_view rate = read_attr("rate", kAttrRate, port.attr_fds[2]);
  port.rate_bytes_per_second = ParseRateBytesPerSecond(rate);
  if (!rate.empty() && !port.rate_bytes_per_second &&
      !(port.logged_attrs & kAttrRate)) {
    port.logged_attrs |= kAttrRate;
    spdlog::warn("sysfs: {}: cannot parse rate \"{}\"",
                 PathOf(port.path, "rate"), rate);
  }
  port.lid.reset();
  if (port.model->link_layer != "Ethernet") {
    if (auto lid =
            ParseHexOrDecimal(read_attr("lid", kAttrLid, port.attr_fds[3]));
        lid && *lid != 0) {
      port.lid = *lid;
    }
  }

  ReadCounterDir(dev, port.path, portdir, "counters", port.counters, true);
  ReadCounterDir(dev, port.path, portdir, "counters_ext", port.counters_ext,
                 true);
  ReadCounterDir(dev, port.path, portdir, "hw_counters", port.hw_counters,
                 options.hw_counters);
}

void SysfsSource::ReadCounterDir(DeviceSnapshot& dev,
                                 std::string_view parent_dir, LazyDir& parent,
                                 std::string_view sub, CounterDir& cdir,
                                 bool values) {
  cdir.lifespan_ms.reset();
  for (CounterFile& f : cdir.files) f.has_value = false;
  if (!cdir.present) return;
  char buf[kValueBuf];
  char rel[PATH_MAX];

  if (cdir.has_lifespan && JoinRel(rel, sub, "lifespan")) {
    const long n =
        ReadCached(cdir.lifespan_fd, parent, parent_dir, rel, buf, sizeof(buf));
    if (n > 0) {
      const ParsedValue v = ParseCounterValue(std::string_view(buf, n));
      if (v.status == ValueStatus::kOk) cdir.lifespan_ms = v.value;
    }
  }
  if (!values) return;

  // Newly remembered failures, summarized in one log line per reason.
  struct Summary {
    Unreadable reason;
    int err;
    int count = 0;
    std::string names;
  };
  std::vector<Summary> summaries;
  auto remember = [&](CounterFile& f, Unreadable reason, int err) {
    f.unreadable = reason;
    f.error = err;
    f.skip = reason != Unreadable::kTransient;
    if (f.skip) f.fd.Close();
    if (f.logged) return;
    f.logged = true;
    auto it = std::find_if(
        summaries.begin(), summaries.end(),
        [&](const Summary& s) { return s.reason == reason && s.err == err; });
    if (it == summaries.end()) {
      summaries.push_back(Summary{reason, err});
      it = summaries.end() - 1;
    }
    if (it->count++ < 8) {
      if (!it->names.empty()) it->names.append(", ");
      it->names.append(f.name);
    }
  };

  for (CounterFile& f : cdir.files) {
    if (f.skip) continue;
    if (!JoinRel(rel, sub, f.name)) continue;
    const long n = ReadCached(f.fd, parent, parent_dir, rel, buf, sizeof(buf));
    if (n < 0) {
      const int err = static_cast<int>(-n);
      switch (Classify(err)) {
        case Failure::kVanished:
          dev.stale = true;
          break;
        case Failure::kRemember:
          remember(f, Unreadable::kError, err);
          break;
        case Failure::kTransient:
          remember(f, Unreadable::kTransient, err);
          break;
      }
      continue;
    }
    const ParsedValue v = ParseCounterValue(std::string_view(buf, n));
    switch (v.status) {
      case ValueStatus::kOk:
        f.has_value = true;
        f.value = v.value;
        f.unreadable = Unreadable::kNone;
        f.error = 0;
        break;
      case ValueStatus::kNotAvailable:
        remember(f, Unreadable::kNotAvailable, 0);
        break;
      case ValueStatus::kMalformed:
        remember(f, Unreadable::kMalformed, 0);
        break;
    }
  }

  for (const Summary& s : summaries) {
    const std::string dir = PathOf(parent_dir, sub);
    const char* what = ReasonText(s.reason, s.err);
    const char* fate = s.reason == Unreadable::kTransient
                           ? "skipped this scrape, retried later"
                           : "not exported while the device exists";
    if (s.reason == Unreadable::kNotAvailable) {
      spdlog::info("sysfs: {}: {} file(s) {} ({}{}); {}", dir, s.count, what,
                   s.names, s.count > 8 ? ", ..." : "", fate);
    } else {
      spdlog::warn("sysfs: {}: {} file(s): {} ({}{}); {}", dir, s.count, what,
                   s.names, s.count > 8 ? ", ..." : "", fate);
    }
  }
}

}  // namespace rnic::sysfs
