#include "collectors/host/pci_tree.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "collectors/common/dir_fd.h"
#include "collectors/common/small_file.h"

namespace rnic::gpu {
namespace {

std::optional<std::uint32_t> ParseHex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  std::uint32_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return v;
}

// domain, bus, device, function; nullopt for other text.
std::optional<std::array<std::uint32_t, 4>> SplitAddress(std::string_view a) {
  const auto c1 = a.find(':');
  const auto c2 = a.find(':', c1 == std::string_view::npos ? 0 : c1 + 1);
  const auto dot = a.find('.', c2 == std::string_view::npos ? 0 : c2 + 1);
  if (c1 == std::string_view::npos || c2 == std::string_view::npos ||
      dot == std::string_view::npos) {
    return std::nullopt;
  }
  const auto d = ParseHex(a.substr(0, c1));
  const auto b = ParseHex(a.substr(c1 + 1, c2 - c1 - 1));
  const auto s = ParseHex(a.substr(c2 + 1, dot - c2 - 1));
  const auto f = ParseHex(a.substr(dot + 1));
  if (!d || !b || !s || !f) return std::nullopt;
  return std::array<std::uint32_t, 4>{*d, *b, *s, *f};
}

bool IsHostBridge(std::string_view component) {
  // "pci0000:3a" (x86 ACPI roots), "pci10000:00" (a VMD domain).
  return component.size() > 3 && component.starts_with("pci") &&
         std::isxdigit(static_cast<unsigned char>(component[3])) &&
         component.find(':') != std::string_view::npos;
}

}  // namespace

std::string_view RelationName(Relation r) {
  switch (r) {
    case Relation::kPix:
      return "PIX";
    case Relation::kPxb:
      return "PXB";
    case Relation::kPhb:
      return "PHB";
    case Relation::kNode:
      return "NODE";
    case Relation::kSys:
      return "SYS";
  }
  return "SYS";
}

Relation Relate(const PciFunction& a, const PciFunction& b) {
  const auto& pa = a.ancestors;
  const auto& pb = b.ancestors;
  if (pa.empty() || pb.empty() || pa.front() != pb.front()) {
    // Different host bridges. A host with one NUMA node prints -1 for every
    // function: both unknown is one node too.
    return a.numa == b.numa ? Relation::kNode : Relation::kSys;
  }
  std::size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) {
    ++common;
  }
  if (common == 1) return Relation::kPhb;  // only the host bridge is shared
  // Below the common bridge: one switch's downstream port on each side (or
  // nothing, functions of one device) is PIX, as nvidia-smi counts it.
  const std::size_t da = pa.size() - common;
  const std::size_t db = pb.size() - common;
  return da <= 1 && db <= 1 ? Relation::kPix : Relation::kPxb;
}

std::optional<std::vector<std::string>> ParseAncestors(
    std::string_view link_target, std::string_view address) {
  std::vector<std::string> parts;
  while (!link_target.empty()) {
    const auto slash = link_target.find('/');
    const std::string_view seg = link_target.substr(0, slash);
    if (!seg.empty() && seg != "." && seg != "..") parts.emplace_back(seg);
    if (slash == std::string_view::npos) break;
    link_target.remove_prefix(slash + 1);
  }
  if (parts.empty() || parts.back() != address) return std::nullopt;
  parts.pop_back();
  // From the first host bridge on: what precedes it ("devices",
  // "platform/...") is not PCI.
  const auto root = std::find_if(parts.begin(), parts.end(),
                                 [](const auto& p) { return IsHostBridge(p); });
  if (root == parts.end()) return std::nullopt;
  parts.erase(parts.begin(), root);
  return parts;
}

Result<PciFunction> ReadPciFunction(const std::string& sysfs,
                                    const std::string& address) {
  const std::string dir = sysfs + "/bus/pci/devices/" + address;
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(dir.c_str(), buf.data(), buf.size() - 1);
  if (n < 0) return Error::FromErrno("readlink " + dir, errno);
  PciFunction f;
  f.address = address;
  auto anc = ParseAncestors(std::string_view(buf.data(), n), address);
  if (!anc) {
    return Error{"no host bridge in the link target of " + dir + ": " +
                 std::string(buf.data(), n)};
  }
  f.ancestors = std::move(*anc);
  if (auto v = ReadSmallFile(dir + "/vendor"); v.ok()) {
    f.vendor = ParseHex(*v).value_or(0);
  }
  if (auto c = ReadSmallFile(dir + "/class"); c.ok()) {
    f.class_code = ParseHex(*c).value_or(0);
  }
  const std::string drv = dir + "/driver";
  const ssize_t dn = ::readlink(drv.c_str(), buf.data(), buf.size() - 1);
  if (dn > 0) {
    const std::string_view target(buf.data(), static_cast<std::size_t>(dn));
    const auto slash = target.rfind('/');
    f.driver = std::string(
        slash == std::string_view::npos ? target : target.substr(slash + 1));
  }
  if (auto numa = ReadSmallFile(dir + "/numa_node"); numa.ok()) {
    int v = -1;
    const auto [p, ec] =
        std::from_chars(numa->data(), numa->data() + numa->size(), v);
    if (ec == std::errc() && v >= 0) f.numa = v;
  }
  return f;
}

Result<std::vector<PciFunction>> ReadPciFunctions(
    const std::string& sysfs, std::vector<std::string>* skipped) {
  auto names = ListDirectory(sysfs + "/bus/pci/devices");
  if (!names.ok()) return names.error();
  std::sort(names->begin(), names->end(),
            [](const auto& a, const auto& b) { return PciAddressLess(a, b); });
  std::vector<PciFunction> out;
  out.reserve(names->size());
  for (const std::string& name : *names) {
    auto f = ReadPciFunction(sysfs, name);
    if (f.ok()) {
      out.push_back(std::move(f).value());
    } else if (skipped) {
      skipped->push_back(name);
    }
  }
  return out;
}

std::string_view VendorName(GpuVendor v) {
  switch (v) {
    case GpuVendor::kNvidia:
      return "nvidia";
    case GpuVendor::kAmd:
      return "amd";
    case GpuVendor::kIntel:
      return "intel";
    case GpuVendor::kNone:
      break;
  }
  return "";
}

GpuVendor GpuVendorOf(const PciFunction& f) {
  const std::uint32_t base = f.class_code >> 16;
  switch (f.vendor) {
    case 0x10de:
      return base == 0x03 ? GpuVendor::kNvidia : GpuVendor::kNone;
    case 0x1002:
      // Instinct MI300 parts are processing accelerators (0x12), earlier
      // ones display controllers.
      return base == 0x03 || base == 0x12 ? GpuVendor::kAmd : GpuVendor::kNone;
    case 0x8086:
      return base == 0x03 ? GpuVendor::kIntel : GpuVendor::kNone;
    default:
      return GpuVendor::kNone;
  }
}

std::string NvmlBusId(std::string_view address) {
  const auto p = SplitAddress(address);
  if (!p) return std::string(address);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08X:%02X:%02X.%X", (*p)[0], (*p)[1], (*p)[2],
                (*p)[3]);
  return buf;
}

bool PciAddressLess(std::string_view a, std::string_view b) {
  const auto pa = SplitAddress(a);
  const auto pb = SplitAddress(b);
  if (pa && pb) return *pa < *pb;
  if (pa != pb) return pa.has_value();  // addresses before other names
  return a < b;
}

}  // namespace rnic::gpu
