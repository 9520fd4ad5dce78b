// Families of the gpu collector, declared once.
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kGpuInfo{
    "rnic_gpu_info", MetricType::Gauge,
    "gpu,pci_bus_id,pci_address,gpu_vendor,numa_node",
    "A GPU on the host (a PCI display or 3D controller of NVIDIA, AMD or "
    "Intel), always 1. gpu: its position among this vendor's GPUs by PCI "
    "address (NVML's default numbering, dcgm-exporter's and NCCL "
    "Inspector's gpu label; \"\" for an NVIDIA GPU the nvidia driver is not "
    "bound to, which NVML does not see); pci_bus_id: NVML's bus id as "
    "dcgm-exporter "
    "prints it (\"00000000:3B:00.0\"); pci_address: as sysfs names it; "
    "numa_node: \"\" when the kernel does not know."};

inline constexpr FamilyDesc kGpuTopology{
    "rnic_gpu_topology_info", MetricType::Gauge,
    "device,rail,gpu,pci_bus_id,gpu_vendor,relation,nearest",
    "PCI relation of an RDMA device to a GPU, always 1, one series per "
    "(device, GPU) pair. relation as nvidia-smi topo -m names it: PIX "
    "(below one PCIe switch), PXB (across several bridges, not through the "
    "host bridge), PHB (through the host bridge), NODE (across host "
    "bridges of one NUMA node), SYS (across NUMA nodes). nearest: \"true\" "
    "when no RDMA device is closer to this GPU. rail: the device's "
    "position among the host's RDMA physical functions by PCI address, or "
    "in --collector.gpu.rails; \"\" for a device without one."};

inline constexpr FamilyDesc kGpuDirectCheck{
    "rnic_gpudirect_check_state", MetricType::Gauge,
    "check,device,state,reason",
    "GPUDirect RDMA readiness, always 1, one series per check (and RDMA "
    "device for per-device checks) on a host with GPUs. state: ok, failed, "
    "or unknown when the facts could not be read (never ok then); "
    "reason: what was found. check: peer_memory (host-wide: "
    "nvidia_peermem or nv_peer_mem loaded, or DMA-BUF with Linux 5.12+ "
    "and NVIDIA's open kernel module or amdgpu), iommu (per device: no "
    "IOMMU, a passthrough domain, or translation with ATS on), dma_buf "
    "(per device: Linux 5.12+, CONFIG_DMA_SHARED_BUFFER and an RDMA driver "
    "that registers DMA-BUF memory), acs and ats (per device, with "
    "--collector.gpu.pci-config and CAP_SYS_ADMIN: no ACS P2P redirect on "
    "the bridges to the nearest GPU, or redirect with Direct Translated P2P "
    "and ATS on; ATS enabled, or not needed without translation)."};

}  // namespace rnic::families
