// Names the owner of an RDMA object the way `rdma resource` does: the
// command name from <procfs>/<pid>/comm for user objects, "[<module>]" for
// kernel-owned ones. The kernel only sends the pid (in the caller's PID
// namespace), so a process outside our namespace or gone since reads as
// "[unknown]".
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "collectors/netlink/rdma_source.h"

namespace rnic::nl {

class CommResolver {
 public:
  explicit CommResolver(std::string procfs) : procfs_(std::move(procfs)) {}
  [[nodiscard]] const std::string& Resolve(const Owner& owner);
  [[nodiscard]] const std::string& CommOfPid(std::uint32_t pid);
  // Forget cached names (pids are reused): call once per scrape.
  void Clear() {
    by_pid_.clear();
    by_kern_.clear();
  }

 private:
  std::string procfs_;
  std::unordered_map<std::uint32_t, std::string> by_pid_;
  std::unordered_map<std::string, std::string> by_kern_;
};

inline constexpr const char* kUnknownComm = "[unknown]";

}  // namespace rnic::nl
