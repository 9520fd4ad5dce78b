#include "collectors/netlink/comm_resolver.h"

#include <fstream>

namespace rnic::nl {

const std::string& CommResolver::CommOfPid(std::uint32_t pid) {
  auto [it, inserted] = by_pid_.try_emplace(pid);
  if (inserted) {
    std::ifstream in(procfs_ + "/" + std::to_string(pid) + "/comm");
    std::string comm;
    if (in && std::getline(in, comm) && !comm.empty()) {
      it->second = std::move(comm);
    } else {
      it->second = kUnknownComm;
    }
  }
  return it->second;
}

const std::string& CommResolver::Resolve(const Owner& owner) {
  if (owner.pid) return CommOfPid(*owner.pid);
  std::string key(owner.kern_name);
  auto [it, inserted] = by_kern_.try_emplace(key);
  if (inserted) {
    it->second = key.empty() ? std::string(kUnknownComm) : "[" + key + "]";
  }
  return it->second;
}

}  // namespace rnic::nl
