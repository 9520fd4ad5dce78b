// NIC-to-GPU topology: the host's GPUs (numbered as their vendor's tools
// number them), each RDMA device's rail, and for every (RDMA device, GPU)
// pair the PCI relation between them. Pure functions over the PCI tree
// (pci_tree.h), so every host shape is a unit test.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/host/pci_tree.h"

namespace rnic::gpu {

struct Gpu {
  PciFunction fn;
  GpuVendor vendor = GpuVendor::kNone;
  // Position among this vendor's GPUs ordered by PCI address: NVML's
  // default enumeration (CUDA_DEVICE_ORDER=PCI_BUS_ID, nvidia-smi, the
  // `gpu` label of dcgm-exporter). NVML sees only the GPUs the nvidia
  // driver is bound to, so an NVIDIA GPU bound to another (vfio-pci for a
  // VM) or none is not numbered and does not count.
  std::optional<int> index;
  std::string bus_id;  // NvmlBusId(fn.address)
};

// An RDMA device on a PCI function of its own (rxe and siw have none).
struct RdmaFunction {
  std::string device;   // mlx5_0
  std::string address;  // 0000:3b:00.0
  bool vf = false;      // a virtual function (device/physfn)
};

struct Pair {
  std::string device;
  std::size_t gpu = 0;  // index into Topology::gpus
  Relation relation = Relation::kSys;
  // No other RDMA device is closer to this GPU (ties are all nearest).
  bool nearest = false;
};

struct Topology {
  std::vector<Gpu> gpus;                     // by PCI address
  std::map<std::string, std::string> rails;  // device -> rail ("0", "1", ...)
  std::vector<Pair> pairs;                   // by device, then GPU
  // The RDMA devices found in the PCI tree, by name, with their function.
  std::vector<std::pair<std::string, PciFunction>> nics;
  // The GPU closest to `device` (the lowest index among equals), or
  // nullptr without GPUs or for a device not in the tree.
  [[nodiscard]] const Gpu* NearestGpu(std::string_view device) const;
};

// The GPUs among `fns` (sorted by address, as ReadPciFunctions returns).
[[nodiscard]] std::vector<Gpu> FindGpus(const std::vector<PciFunction>& fns);

// A configured rail order: RDMA device names separated by commas, the
// first rail 0 ("mlx5_0,mlx5_3,mlx5_4"). Empty text: none configured. An
// empty or repeated name is an error.
[[nodiscard]] Result<std::vector<std::string>> ParseRailOrder(
    std::string_view text);

// The rail of each RDMA device. Configured: the device's position in
// `order`, unlisted devices have none. Otherwise: the position of the
// device's physical function among the host's RDMA physical functions by
// PCI address (VFs have no rail of their own).
[[nodiscard]] std::map<std::string, std::string> AssignRails(
    const std::vector<RdmaFunction>& nics,
    const std::vector<std::string>& order);

// Everything above. A NIC whose function is not among `fns` is left out of
// the pairs.
[[nodiscard]] Topology BuildTopology(const std::vector<PciFunction>& fns,
                                     const std::vector<RdmaFunction>& nics,
                                     const std::vector<std::string>& order);

}  // namespace rnic::gpu
