// The host's PCI tree as sysfs shows it: every function of
// <sysfs>/bus/pci/devices with its vendor, class, NUMA node and the chain of
// bridges above it (read from where its bus/pci/devices link points:
// devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/...), and the relation of two
// functions in the words `nvidia-smi topo -m` uses. No GPU library: the
// kernel's PCI core says all this for every vendor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/result.h"

namespace rnic::gpu {

struct PciFunction {
  std::string address;  // "0000:3b:00.0", as sysfs names it
  // Components above the function, host bridge first: "pci0000:3a",
  // "0000:3a:00.0" (root port), "0000:3b:00.0" (switch upstream port), ...
  std::vector<std::string> ancestors;
  std::uint32_t vendor = 0;      // 0x10de
  std::uint32_t class_code = 0;  // 0x030200 (3D controller)
  std::optional<int> numa;       // numa_node; nullopt for -1 or unreadable
  std::string driver;            // the bound driver ("nvidia"), "" if none
};

// How the path between two functions runs, closest first; the names are
// nvidia-smi's. kPix: below one PCIe switch (at most one bridge on each
// side of the common ancestor); kPxb: across several bridges without
// reaching the host bridge; kPhb: through the host bridge (same root
// complex); kNode: across host bridges of one NUMA node; kSys: across NUMA
// nodes (the socket interconnect).
enum class Relation { kPix = 0, kPxb, kPhb, kNode, kSys };
[[nodiscard]] std::string_view RelationName(Relation r);

[[nodiscard]] Relation Relate(const PciFunction& a, const PciFunction& b);

// The components of a bus/pci/devices link target after "devices/", split
// into ancestors and the function's own name; nullopt when the target does
// not end in the function or holds no "pci<domain>:<bus>" host bridge.
[[nodiscard]] std::optional<std::vector<std::string>> ParseAncestors(
    std::string_view link_target, std::string_view address);

// One function: <sysfs>/bus/pci/devices/<address>. Missing vendor or class
// files leave 0, a missing driver link ""; a missing device link is an
// error.
[[nodiscard]] Result<PciFunction> ReadPciFunction(const std::string& sysfs,
                                                  const std::string& address);

// Every function under <sysfs>/bus/pci/devices, sorted by address. An
// unreadable function is left out (and its name added to `skipped`).
[[nodiscard]] Result<std::vector<PciFunction>> ReadPciFunctions(
    const std::string& sysfs, std::vector<std::string>* skipped = nullptr);

enum class GpuVendor { kNone, kNvidia, kAmd, kIntel };
[[nodiscard]] std::string_view VendorName(GpuVendor v);

// A display controller (PCI base class 0x03: VGA, XGA, 3D, other) of
// NVIDIA (0x10de), AMD (0x1002) or Intel (0x8086), or an AMD processing
// accelerator (base class 0x12: Instinct MI300); kNone for anything else
// (a BMC's VGA, an NVSwitch, which is a bridge).
[[nodiscard]] GpuVendor GpuVendorOf(const PciFunction& f);

// "0000:3b:00.0" -> "00000000:3B:00.0": NVML's bus id, as dcgm-exporter's
// pci_bus_id label prints it (8-digit domain, upper-case hex). Text that
// is not <domain>:<bus>:<dev>.<fn> comes back unchanged.
[[nodiscard]] std::string NvmlBusId(std::string_view address);

// Orders PCI addresses numerically (domain, bus, device, function), as
// NVML enumerates GPUs by default.
[[nodiscard]] bool PciAddressLess(std::string_view a, std::string_view b);

}  // namespace rnic::gpu
