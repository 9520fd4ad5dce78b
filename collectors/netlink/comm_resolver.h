// Names the owner of an RDMA object: the process's command name for user
// objects, "[<module>]" for kernel-owned ones. The kernel sends the id of
// the *thread* that created the object (in the caller's PID namespace), and
// `rdma resource` prints that thread's name; a multithreaded application
// (NCCL's proxy threads, the exporter's own "rnic-probe") would then split
// into one "process" per thread name. So the thread is mapped to its
// process (Tgid in <procfs>/<id>/status) and the process's comm is used.
// An id outside our namespace or gone since reads as "[unknown]".
//
// With containers on, the group an object is counted under is also the
// process's pod and container, with slurm on its Slurm job (both from
// <procfs>/<tgid>/cgroup, cgroup_parse.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "collectors/netlink/cgroup_parse.h"
#include "collectors/nl/rdma_source.h"

namespace rnic::nl {

class CommResolver {
 public:
  explicit CommResolver(std::string procfs, bool containers = false,
                        bool slurm = false)
      : procfs_(std::move(procfs)), containers_(containers), slurm_(slurm) {}
  [[nodiscard]] const std::string& Resolve(const Owner& owner);
  // The key an owner's objects are counted under: Resolve(owner), and with
  // containers or slurm on, MakeGroupKey() of it and the process's pod and
  // container, Slurm job (what is on; the rest left empty).
  [[nodiscard]] const std::string& Group(const Owner& owner);
  // The pod and container (with containers on) and Slurm job (with slurm
  // on) of a thread's process, cached per scrape; empty when the process is
  // in none or procfs does not say.
  [[nodiscard]] const ContainerRef& ContainerOfPid(std::uint32_t pid);
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
    containers_by_pid_.clear();
    groups_.clear();
  }

 private:
  std::string procfs_;
  std::unordered_map<std::uint32_t, std::string> by_pid_;
  std::unordered_map<std::string, std::string> by_kern_;
  std::unordered_map<std::uint32_t, std::uint32_t> tgid_;
  bool containers_ = false;
  bool slurm_ = false;
  std::unordered_map<std::uint32_t, ContainerRef> containers_by_pid_;
  std::unordered_map<std::uint32_t, std::string> groups_;
};

// A group key: the comm alone when the process is in no container or job,
// else comm, pod UID, container ID and Slurm job id joined by '\x1f'.
// SplitGroupKey() splits from the end, so a comm holding the separator still
// splits right.
[[nodiscard]] std::string MakeGroupKey(const std::string& comm,
                                       const ContainerRef& ref);
struct GroupLabels {
  std::string comm;
  ContainerRef container;
};
[[nodiscard]] GroupLabels SplitGroupKey(const std::string& key);

inline constexpr const char* kUnknownComm = "[unknown]";

}  // namespace rnic::nl
