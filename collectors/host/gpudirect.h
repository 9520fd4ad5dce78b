// GPUDirect RDMA readiness: whether a NIC can DMA straight into GPU memory
// on this host, as checks with a state and a reason. A check that cannot be
// read is kUnknown, never kOk. Each check names the privilege it needs:
//   peer_memory  none: <sysfs>/module/<name>/initstate, <procfs>/driver/
//                nvidia/version and <procfs>/sys/kernel/osrelease are
//                world-readable.
//   iommu        none: <sysfs>/bus/pci/devices/<bdf>/iommu_group/type
//                (Linux 5.11+), <sysfs>/class/iommu and <procfs>/cmdline
//                are world-readable.
//   acs, ats     CAP_SYS_ADMIN: the ACS and ATS capabilities are in PCIe
//                extended configuration space, and the kernel shows an
//                unprivileged reader of <bdf>/config only its first 64 bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/host/pci_tree.h"
#include "collectors/host/gpu_topology.h"

namespace rnic::gpu {

enum class CheckState { kOk, kFailed, kUnknown };
[[nodiscard]] std::string_view CheckStateName(CheckState s);

struct CheckResult {
  std::string check;   // "peer_memory", "iommu", "acs"
  std::string device;  // the RDMA device, "" for a host-wide check
  CheckState state = CheckState::kUnknown;
  std::string reason;
};

struct ReadinessPaths {
  std::string sysfs = "/sys";
  std::string procfs = "/proc";
};

// "6.8.0-45-generic" -> {6, 8}; nullopt when it does not start so.
[[nodiscard]] std::optional<std::pair<int, int>> ParseKernelRelease(
    std::string_view release);

// A peer-memory path for the GPUs present: for NVIDIA, nvidia_peermem (or
// the older nv_peer_mem) loaded and live, or DMA-BUF (Linux 5.12+ with
// NVIDIA's open kernel module); for AMD, DMA-BUF (Linux 5.12+ with amdgpu
// loaded). Host-wide.
[[nodiscard]] CheckResult CheckPeerMemory(const ReadinessPaths& paths,
                                          const std::vector<Gpu>& gpus);

// DMA-BUF memory registration by the device's RDMA driver (what the GPU
// side of peer_memory's DMA-BUF path needs from the NIC): the kernel's
// ib_umem_dmabuf (Linux 5.12+), built only with CONFIG_DMA_SHARED_BUFFER,
// seen as <sysfs>/module/drm (DRM selects it) or <sysfs>/kernel/dmabuf;
// and a driver known to register DMA-BUF memory: mlx5 (its PCI driver
// mlx5_core with mlx5_ib loaded). Any other driver is unknown, not failed.
[[nodiscard]] CheckResult CheckNicDmaBuf(const ReadinessPaths& paths,
                                         const std::string& device,
                                         const PciFunction& nic);

// The IOMMU domain of the device's function: none or passthrough
// (identity) is ok; DMA translation remaps every peer-to-peer transfer
// and is what NVIDIA's GPUDirect RDMA guide asks to turn off (iommu=pt),
// unless the function caches translations itself (`ats_enabled`, when
// its configuration space was read).
[[nodiscard]] CheckResult CheckIommu(const ReadinessPaths& paths,
                                     const std::string& device,
                                     const std::string& pci_address,
                                     std::optional<bool> ats_enabled = {});

// The offset of extended capability `id` in a configuration space (the
// bytes of <bdf>/config), nullopt when absent.
[[nodiscard]] std::optional<std::size_t> FindExtCap(std::string_view config,
                                                    std::uint16_t id);

// The ACS control register (extended capability 0x000d): nullopt when the
// space holds no ACS capability.
struct AcsControl {
  std::uint16_t control = 0;
  [[nodiscard]] bool redirects() const {
    // P2P Request Redirect (bit 2) or P2P Completion Redirect (bit 3).
    return (control & 0x000c) != 0;
  }
  // Direct Translated P2P (bit 6): requests whose address an ATS
  // translation already resolved pass the bridge directly, redirect or not.
  [[nodiscard]] bool direct_translated() const {
    return (control & 0x0040) != 0;
  }
};
[[nodiscard]] std::optional<AcsControl> FindAcs(std::string_view config);

// Whether the bridges between the device's function and its nearest GPU
// redirect peer-to-peer requests up to the root complex. `nic` and `gpu`
// as the PCI tree has them. A redirecting bridge with Direct Translated P2P
// does not count when ATS is enabled on the device's function (`nic_ats`,
// ReadAtsEnabled): the NIC's requests to GPU memory are then translated and
// go direct.
[[nodiscard]] CheckResult CheckAcs(const ReadinessPaths& paths,
                                   const std::string& device,
                                   const PciFunction& nic, const Gpu& gpu,
                                   std::optional<bool> nic_ats = {});

// ATS (Address Translation Services, extended capability 0x000f) of the
// device's function: whether its Enable bit (control bit 15) is set.
// nullopt with `why` set when the configuration space cannot be read whole.
[[nodiscard]] std::optional<bool> ReadAtsEnabled(const ReadinessPaths& paths,
                                                 const std::string& address,
                                                 std::string* why);

// The ats check: ATS enabled, or not needed because the IOMMU does not
// translate the function's DMA (`iommu`, CheckIommu's result without ATS).
[[nodiscard]] CheckResult CheckAts(const std::string& device,
                                   std::optional<bool> ats_enabled,
                                   const std::string& unreadable,
                                   const CheckResult& iommu);

}  // namespace rnic::gpu
