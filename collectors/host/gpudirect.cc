#include "collectors/host/gpudirect.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

#include "collectors/common/dir_fd.h"
#include "collectors/common/small_file.h"

namespace rnic::gpu {
namespace {

// A reason names a file as it is on the host (/sys/..., /proc/...), not
// under --path.sysfs or --path.procfs: labels stay the same wherever the
// trees are mounted.
std::string Unreadable(const std::string& file, int err) {
  return file + ": " + std::strerror(err);
}

enum class Presence { kAbsent, kLive, kOther, kUnreadable };
struct ModuleState {
  Presence presence = Presence::kUnreadable;
  std::string detail;  // initstate text or the error
};

// <sysfs>/module/<name>: a loadable module has initstate ("live" once its
// init ran); a built-in one has a directory without it.
ModuleState Module(const std::string& sysfs, const std::string& name) {
  const std::string dir = sysfs + "/module/" + name;
  struct ::stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) {
      return {Presence::kUnreadable, Unreadable("/sys/module/" + name, err)};
    }
    // Absent only if <sysfs>/module itself is there to say so.
    const std::string root = sysfs + "/module";
    if (::stat(root.c_str(), &st) == 0) return {Presence::kAbsent, {}};
    return {Presence::kUnreadable, Unreadable("/sys/module", errno)};
  }
  auto init = ReadSmallFile(dir + "/initstate");
  if (!init.ok()) {
    if (init.error().errno_value == ENOENT)
      return {Presence::kLive, "built-in"};
    return {Presence::kUnreadable,
            Unreadable("/sys/module/" + name + "/initstate",
                       init.error().errno_value)};
  }
  if (*init == "live") return {Presence::kLive, "live"};
  return {Presence::kOther, *init};
}

struct DmaBuf {
  CheckState state = CheckState::kUnknown;
  std::string reason;
};

std::string KernelText(std::pair<int, int> v) {
  return "Linux " + std::to_string(v.first) + "." + std::to_string(v.second);
}

// The kernel side of DMA-BUF for RDMA (ib_umem_dmabuf, 5.12).
DmaBuf KernelDmaBuf(const ReadinessPaths& paths) {
  auto rel = ReadSmallFile(paths.procfs + "/sys/kernel/osrelease");
  if (!rel.ok()) {
    return {CheckState::kUnknown,
            Unreadable("/proc/sys/kernel/osrelease", rel.error().errno_value)};
  }
  const auto v = ParseKernelRelease(*rel);
  if (!v) return {CheckState::kUnknown, "unparsable kernel release " + *rel};
  if (*v < std::pair{5, 12}) {
    return {CheckState::kFailed,
            KernelText(*v) + " has no RDMA DMA-BUF (5.12+)"};
  }
  return {CheckState::kOk, KernelText(*v)};
}

DmaBuf NvidiaDmaBuf(const ReadinessPaths& paths) {
  DmaBuf k = KernelDmaBuf(paths);
  if (k.state != CheckState::kOk) return k;
  // Only the open kernel modules export GPU memory as DMA-BUF; their
  // version line says so ("NVIDIA UNIX Open Kernel Module for x86_64").
  auto ver = ReadSmallFile(paths.procfs + "/driver/nvidia/version");
  if (!ver.ok()) {
    if (ver.error().errno_value == ENOENT) {
      return {CheckState::kFailed, "NVIDIA driver not loaded"};
    }
    return {CheckState::kUnknown,
            Unreadable("/proc/driver/nvidia/version", ver.error().errno_value)};
  }
  if (ver->find("Open Kernel Module") == std::string::npos) {
    return {CheckState::kFailed,
            "proprietary NVIDIA kernel module (DMA-BUF needs the open one)"};
  }
  return {CheckState::kOk,
          "DMA-BUF: " + k.reason + " and the NVIDIA open kernel module"};
}

DmaBuf AmdDmaBuf(const ReadinessPaths& paths) {
  DmaBuf k = KernelDmaBuf(paths);
  if (k.state != CheckState::kOk) return k;
  const ModuleState amdgpu = Module(paths.sysfs, "amdgpu");
  switch (amdgpu.presence) {
    case Presence::kLive:
      return {CheckState::kOk, "DMA-BUF: " + k.reason + " and amdgpu"};
    case Presence::kAbsent:
      return {CheckState::kFailed, "amdgpu not loaded"};
    case Presence::kOther:
      return {CheckState::kFailed, "amdgpu is " + amdgpu.detail};
    case Presence::kUnreadable:
      break;
  }
  return {CheckState::kUnknown, amdgpu.detail};
}

CheckResult Check(std::string check, std::string device, CheckState state,
                  std::string reason) {
  return CheckResult{std::move(check), std::move(device), state,
                     std::move(reason)};
}

bool CmdlineHas(std::string_view cmdline, std::string_view word) {
  std::size_t at = 0;
  while ((at = cmdline.find(word, at)) != std::string_view::npos) {
    const bool start = at == 0 || cmdline[at - 1] == ' ';
    const std::size_t end = at + word.size();
    if (start && (end == cmdline.size() || cmdline[end] == ' ')) return true;
    at = end;
  }
  return false;
}

// The whole of a binary sysfs file (config is up to 4096 bytes).
struct Bytes {
  std::string data;
  int err = 0;
};
Bytes ReadBinary(const std::string& path) {
  Bytes b;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    b.err = errno;
    return b;
  }
  char buf[4096];
  while (b.data.size() < 4096) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      b.err = errno;
      break;
    }
    if (n == 0) break;
    b.data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return b;
}

std::uint16_t Le16(std::string_view s, std::size_t at) {
  return static_cast<std::uint16_t>(
      static_cast<unsigned char>(s[at]) |
      (static_cast<unsigned char>(s[at + 1]) << 8));
}

std::uint32_t Le32(std::string_view s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  }
  return v;
}

}  // namespace

std::string_view CheckStateName(CheckState s) {
  switch (s) {
    case CheckState::kOk:
      return "ok";
    case CheckState::kFailed:
      return "failed";
    case CheckState::kUnknown:
      break;
  }
  return "unknown";
}

std::optional<std::pair<int, int>> ParseKernelRelease(
    std::string_view release) {
  int major = 0;
  int minor = 0;
  const char* end = release.data() + release.size();
  auto r = std::from_chars(release.data(), end, major);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '.') {
    return std::nullopt;
  }
  r = std::from_chars(r.ptr + 1, end, minor);
  if (r.ec != std::errc()) return std::nullopt;
  return std::pair{major, minor};
}

CheckResult CheckNicDmaBuf(const ReadinessPaths& paths,
                           const std::string& device, const PciFunction& nic) {
  const DmaBuf k = KernelDmaBuf(paths);
  if (k.state != CheckState::kOk)
    return Check("dma_buf", device, k.state, k.reason);
  struct ::stat st {};
  const bool shared_buffer =
      Module(paths.sysfs, "drm").presence == Presence::kLive ||
      ::stat((paths.sysfs + "/kernel/dmabuf").c_str(), &st) == 0;
  if (nic.driver.empty()) {
    return Check("dma_buf", device, CheckState::kUnknown,
                 "no driver bound to " + nic.address);
  }
  if (nic.driver != "mlx5_core") {
    return Check(
        "dma_buf", device, CheckState::kUnknown,
        "DMA-BUF support of the " + nic.driver + " RDMA driver not known");
  }
  const ModuleState ib = Module(paths.sysfs, "mlx5_ib");
  switch (ib.presence) {
    case Presence::kLive:
      break;
    case Presence::kAbsent:
      return Check("dma_buf", device, CheckState::kFailed,
                   "mlx5_ib not loaded");
    case Presence::kOther:
      return Check("dma_buf", device, CheckState::kFailed,
                   "mlx5_ib is " + ib.detail);
    case Presence::kUnreadable:
      return Check("dma_buf", device, CheckState::kUnknown, ib.detail);
  }
  if (!shared_buffer) {
    return Check("dma_buf", device, CheckState::kUnknown,
                 "no sign of CONFIG_DMA_SHARED_BUFFER (/sys/module/drm, "
                 "/sys/kernel/dmabuf)");
  }
  return Check("dma_buf", device, CheckState::kOk,
               "mlx5_ib registers DMA-BUF memory (" + k.reason + ")");
}

CheckResult CheckPeerMemory(const ReadinessPaths& paths,
                            const std::vector<Gpu>& gpus) {
  bool nvidia = false;
  bool amd = false;
  for (const Gpu& g : gpus) {
    nvidia = nvidia || g.vendor == GpuVendor::kNvidia;
    amd = amd || g.vendor == GpuVendor::kAmd;
  }
  if (nvidia) {
    for (const char* name : {"nvidia_peermem", "nv_peer_mem"}) {
      const ModuleState m = Module(paths.sysfs, name);
      if (m.presence == Presence::kLive) {
        return Check("peer_memory", "", CheckState::kOk,
                     std::string(name) + " loaded");
      }
    }
    const ModuleState peermem = Module(paths.sysfs, "nvidia_peermem");
    const DmaBuf dmabuf = NvidiaDmaBuf(paths);
    if (dmabuf.state == CheckState::kOk) {
      return Check("peer_memory", "", CheckState::kOk, dmabuf.reason);
    }
    std::string why;
    CheckState state = dmabuf.state;
    switch (peermem.presence) {
      case Presence::kAbsent:
        why = "nvidia_peermem not loaded";
        break;
      case Presence::kOther:
        why = "nvidia_peermem is " + peermem.detail;
        break;
      default:
        why = "nvidia_peermem: " + peermem.detail;
        state = CheckState::kUnknown;
        break;
    }
    return Check("peer_memory", "", state, why + "; DMA-BUF: " + dmabuf.reason);
  }
  if (amd) {
    const DmaBuf dmabuf = AmdDmaBuf(paths);
    return Check("peer_memory", "", dmabuf.state,
                 dmabuf.state == CheckState::kOk ? dmabuf.reason
                                                 : "DMA-BUF: " + dmabuf.reason);
  }
  return Check("peer_memory", "", CheckState::kUnknown,
               "no peer-memory check for these GPUs' vendor");
}

CheckResult CheckIommu(const ReadinessPaths& paths, const std::string& device,
                       const std::string& pci_address,
                       std::optional<bool> ats_enabled) {
  const std::string fn = paths.sysfs + "/bus/pci/devices/" + pci_address;
  const std::string canon = "/sys/bus/pci/devices/" + pci_address;
  auto type = ReadSmallFile(fn + "/iommu_group/type");
  if (type.ok()) {
    if (*type == "identity") {
      return Check("iommu", device, CheckState::kOk,
                   "identity domain (passthrough)");
    }
    if ((*type == "DMA" || *type == "DMA-FQ") && ats_enabled == true) {
      return Check("iommu", device, CheckState::kOk,
                   "DMA translation (iommu_group type " + *type +
                       ") with ATS enabled on the function");
    }
    if (*type == "DMA" || *type == "DMA-FQ") {
      return Check("iommu", device, CheckState::kFailed,
                   "DMA translation (iommu_group type " + *type + ")");
    }
    if (*type == "blocked") {
      return Check("iommu", device, CheckState::kFailed, "blocked domain");
    }
    return Check("iommu", device, CheckState::kUnknown,
                 "iommu_group type " + *type);
  }
  if (type.error().errno_value != ENOENT) {
    return Check(
        "iommu", device, CheckState::kUnknown,
        Unreadable(canon + "/iommu_group/type", type.error().errno_value));
  }
  struct ::stat st {};
  const std::string group = fn + "/iommu_group";
  if (::lstat(group.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      return Check("iommu", device, CheckState::kUnknown,
                   Unreadable(canon + "/iommu_group", errno));
    }
    // No group: no IOMMU translates this function's DMA, if none is
    // registered at all.
    auto units = ListDirectory(paths.sysfs + "/class/iommu");
    if (!units.ok() && units.error().errno_value != ENOENT) {
      return Check("iommu", device, CheckState::kUnknown,
                   Unreadable("/sys/class/iommu", units.error().errno_value));
    }
    if (!units.ok() || units->empty()) {
      return Check("iommu", device, CheckState::kOk, "no IOMMU");
    }
    return Check("iommu", device, CheckState::kUnknown,
                 "IOMMU present but the function has no IOMMU group");
  }
  // A group without a type file: a kernel before 5.11. The command line
  // says whether the default domain is passthrough.
  auto cmdline = ReadSmallFile(paths.procfs + "/cmdline");
  if (!cmdline.ok()) {
    return Check("iommu", device, CheckState::kUnknown,
                 Unreadable("/proc/cmdline", cmdline.error().errno_value));
  }
  if (CmdlineHas(*cmdline, "iommu=pt") ||
      CmdlineHas(*cmdline, "iommu.passthrough=1")) {
    return Check("iommu", device, CheckState::kOk,
                 "passthrough (iommu=pt on the kernel command line)");
  }
  return Check("iommu", device, CheckState::kUnknown,
               "no iommu_group/type (Linux before 5.11) and no iommu=pt on "
               "the kernel command line");
}

std::optional<std::size_t> FindExtCap(std::string_view config,
                                      std::uint16_t id) {
  std::size_t off = 0x100;
  for (int hops = 0; hops < 1024 && off + 4 <= config.size(); ++hops) {
    const std::uint32_t h = Le32(config, off);
    if (h == 0 || h == 0xffffffff) break;
    if ((h & 0xffff) == id) return off;
    const std::size_t next = (h >> 20) & 0xffc;
    if (next < 0x100 || next <= off) break;  // a loop or the end
    off = next;
  }
  return std::nullopt;
}

std::optional<AcsControl> FindAcs(std::string_view config) {
  const auto off = FindExtCap(config, 0x000d);
  if (!off || *off + 8 > config.size()) return std::nullopt;
  return AcsControl{Le16(config, *off + 6)};
}

std::optional<bool> ReadAtsEnabled(const ReadinessPaths& paths,
                                   const std::string& address,
                                   std::string* why) {
  const Bytes cfg =
      ReadBinary(paths.sysfs + "/bus/pci/devices/" + address + "/config");
  if (cfg.err != 0) {
    *why = Unreadable("/sys/bus/pci/devices/" + address + "/config", cfg.err);
    return std::nullopt;
  }
  if (cfg.data.size() < 4096) {
    *why = address + ": " + std::to_string(cfg.data.size()) +
           " bytes of configuration space readable; the ATS check needs "
           "CAP_SYS_ADMIN";
    return std::nullopt;
  }
  const auto off = FindExtCap(cfg.data, 0x000f);
  if (!off || *off + 8 > cfg.data.size()) return false;  // no ATS at all
  return (Le16(cfg.data, *off + 6) & 0x8000) != 0;
}

CheckResult CheckAts(const std::string& device, std::optional<bool> ats_enabled,
                     const std::string& unreadable, const CheckResult& iommu) {
  if (ats_enabled == true) {
    return Check("ats", device, CheckState::kOk, "ATS enabled");
  }
  if (!ats_enabled)
    return Check("ats", device, CheckState::kUnknown, unreadable);
  switch (iommu.state) {
    case CheckState::kOk:
      return Check("ats", device, CheckState::kOk,
                   "ATS off; not needed: " + iommu.reason);
    case CheckState::kFailed:
      return Check("ats", device, CheckState::kFailed,
                   "ATS off under " + iommu.reason);
    case CheckState::kUnknown:
      break;
  }
  return Check("ats", device, CheckState::kUnknown,
               "ATS off; IOMMU mode unknown: " + iommu.reason);
}

CheckResult CheckAcs(const ReadinessPaths& paths, const std::string& device,
                     const PciFunction& nic, const Gpu& gpu,
                     std::optional<bool> nic_ats) {
  const std::string gpu_name =
      gpu.index ? "GPU " + std::to_string(*gpu.index) : "GPU " + gpu.bus_id;
  const Relation rel = Relate(nic, gpu.fn);
  if (rel >= Relation::kPhb) {
    return Check("acs", device, CheckState::kOk,
                 "no PCIe switch between the device and its nearest " +
                     gpu_name + " (" + std::string(RelationName(rel)) + ")");
  }
  const auto& pa = nic.ancestors;
  const auto& pb = gpu.fn.ancestors;
  std::size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) {
    ++common;
  }
  std::vector<std::string> bridges(pa.begin() + common, pa.end());
  bridges.insert(bridges.end(), pb.begin() + common, pb.end());
  std::string redirecting;
  std::string translated;  // redirecting, but Direct Translated P2P on
  std::string unreadable;
  auto append = [](std::string& list, const std::string& b) {
    list += list.empty() ? b : "," + b;
  };
  for (const std::string& b : bridges) {
    const std::string path = paths.sysfs + "/bus/pci/devices/" + b + "/config";
    const Bytes cfg = ReadBinary(path);
    if (cfg.err != 0) {
      if (unreadable.empty())
        unreadable =
            Unreadable("/sys/bus/pci/devices/" + b + "/config", cfg.err);
      continue;
    }
    if (cfg.data.size() < 4096) {
      if (unreadable.empty()) {
        unreadable = b + ": " + std::to_string(cfg.data.size()) +
                     " bytes of configuration space readable; the ACS check "
                     "needs CAP_SYS_ADMIN";
      }
      continue;
    }
    const auto acs = FindAcs(cfg.data);
    if (acs && acs->redirects()) {
      append(acs->direct_translated() ? translated : redirecting, b);
    }
  }
  if (!translated.empty() && nic_ats != true) {
    // Direct Translated P2P helps only requests the NIC had translated.
    if (nic_ats == false) {
      append(redirecting, translated);
      return Check("acs", device, CheckState::kFailed,
                   "ACS P2P redirect on " + redirecting + " to " + gpu_name +
                       " (Direct Translated P2P on " + translated +
                       ", but ATS off on the device)");
    }
    if (unreadable.empty() && redirecting.empty()) {
      unreadable = "ACS P2P redirect with Direct Translated P2P on " +
                   translated + ", ATS of the device unknown";
    }
  }
  if (!redirecting.empty()) {
    return Check("acs", device, CheckState::kFailed,
                 "ACS P2P redirect on " + redirecting + " to " + gpu_name);
  }
  if (!unreadable.empty()) {
    return Check("acs", device, CheckState::kUnknown, unreadable);
  }
  if (!translated.empty()) {
    return Check("acs", device, CheckState::kOk,
                 "ACS P2P redirect on " + translated +
                     " with Direct Translated P2P and ATS enabled on the "
                     "device: translated requests to " +
                     gpu_name + " go direct");
  }
  return Check("acs", device, CheckState::kOk,
               "no ACS P2P redirect on the " + std::to_string(bridges.size()) +
                   " bridges to " + gpu_name);
}

}  // namespace rnic::gpu
