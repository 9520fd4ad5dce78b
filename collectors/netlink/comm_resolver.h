// Names the owner of an RDMA object: the process's command name for user
// objects, "[<module>]" for kernel-owned ones. The kernel sends the id of
// the *thread* that created the object (in the caller's PID namespace), and
// `rdma resource` prints that thread's name; a multithreaded application
// (NCCL's proxy threads, the exporter's own "rnic-probe") would then split
// into one "process" per thread name. So the thread is mapped to its
// process (Tgid in <procfs>/<id>/status) and the process's comm is used.
// An id outside our namespace or gone since reads as "[unknown]".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "collectors/netlink/rdma_source.h"

namespace rnic::nl {

class CommResolver {
 public:
  explicit CommResolver(std::string procfs) : procfs_(std::move(procfs)) {}
  [[nodiscard]] const std::string& Resolve(const Owner& owner);
  [[nodiscard]] const std::string& CommOfPid(std::uint32_t pid);
  // The process (thread group) of a thread id, if procfs says.
  [[nodiscard]] std::optional<std::uint32_t> TgidOf(std::uint32_t pid) const;
  // TgidOf, cached per scrape; the id itself when procfs does not say.
  [[nodiscard]] std::uint32_t ProcessOf(std::uint32_t pid);
  // Forget cached names (pids are reused): call once per scrape.
  void Clear() {
    by_pid_.clear();
    by_kern_.clear();
    tgid_.clear();
  }

 private:
  std::string procfs_;
  std::unordered_map<std::uint32_t, std::string> by_pid_;
  std::unordered_map<std::string, std::string> by_kern_;
  std::unordered_map<std::uint32_t, std::uint32_t> tgid_;
};

inline constexpr const char* kUnknownComm = "[unknown]";

}  // namespace rnic::nl
