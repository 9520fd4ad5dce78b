#include "collectors/kmsg/pci_device_map.h"

#include <filesystem>
#include <fstream>

#include "collectors/kmsg/kmsg_parser.h"

namespace rnic::kmsg {
namespace fs = std::filesystem;

std::string PciOfLink(const std::string& link) {
  std::error_code ec;
  fs::path p = fs::canonical(link, ec);
  if (ec) {
    // A dangling link (partial fixture, device going away): its text may
    // still name the function.
    p = fs::read_symlink(link, ec);
    if (ec) return {};
  }
  std::string found;
  for (const auto& part : p) {
    const std::string s = part.string();
    if (s.size() == 12 && IsPciAddress(s)) found = s;
  }
  return found;
}

std::map<std::string, std::string> ReadPciToRdmaDevice(
    const std::string& sysfs_root) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> via_parent;
  std::error_code ec;
  const fs::path cls = fs::path(sysfs_root) / "class" / "infiniband";
  for (const auto& entry : fs::directory_iterator(cls, ec)) {
    const std::string dev = entry.path().filename().string();
    if (std::string pci = PciOfLink((entry.path() / "device").string());
        !pci.empty()) {
      out.emplace(pci, dev);
      continue;
    }
    std::ifstream in(entry.path() / "parent");
    std::string parent;
    if (in >> parent) {
      std::string pci =
          PciOfLink((fs::path(sysfs_root) / "class" / "net" / parent / "device")
                        .string());
      if (!pci.empty()) via_parent.emplace(pci, dev);
    }
  }
  // Two devices on one function (rxe on a mlx5 netdev): the one with its
  // own `device` link wins, as its driver is the one that logs CQ errors.
  for (auto& [pci, dev] : via_parent) out.emplace(pci, dev);
  return out;
}

}  // namespace rnic::kmsg
