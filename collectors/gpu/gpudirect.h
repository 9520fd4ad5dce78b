// GPUDirect RDMA readiness: whether a NIC can DMA straight into GPU memory
// on this host, as checks with a state and a reason. A check that cannot be
// read is kUnknown, never kOk. Each check names the privilege it needs:
//   peer_memory  none: <sysfs>/module/<name>/initstate, <procfs>/driver/
//                nvidia/version and <procfs>/sys/kernel/osrelease are
//                world-readable.
//   iommu        none: <sysfs>/bus/pci/devices/<bdf>/iommu_group/type
//                (Linux 5.11+), <sysfs>/class/iommu and <procfs>/cmdline
//                are world-readable.
//   acs          CAP_SYS_ADMIN: the ACS capability is in PCIe extended
//                configuration space, and the kernel shows an unprivileged
//                reader of <bdf>/config only its first 64 bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/gpu/pci_tree.h"
#include "collectors/gpu/topology.h"

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

// The IOMMU domain of the device's function: none or passthrough
// (identity) is ok; DMA translation remaps every peer-to-peer transfer
// and is what NVIDIA's GPUDirect RDMA guide asks to turn off (iommu=pt).
[[nodiscard]] CheckResult CheckIommu(const ReadinessPaths& paths,
                                     const std::string& device,
                                     const std::string& pci_address);

// The ACS control register of an extended configuration space (the bytes
// of <bdf>/config): nullopt when the space holds no ACS capability.
// `complete` is false when fewer than 4096 bytes came (unprivileged read).
struct AcsControl {
  std::uint16_t control = 0;
  [[nodiscard]] bool redirects() const {
    // P2P Request Redirect (bit 2) or P2P Completion Redirect (bit 3).
    return (control & 0x000c) != 0;
  }
};
[[nodiscard]] std::optional<AcsControl> FindAcs(std::string_view config);

// Whether the bridges between the device's function and its nearest GPU
// redirect peer-to-peer requests up to the root complex. `nic` and `gpu`
// as the PCI tree has them.
[[nodiscard]] CheckResult CheckAcs(const ReadinessPaths& paths,
                                   const std::string& device,
                                   const PciFunction& nic, const Gpu& gpu);

}  // namespace rnic::gpu
