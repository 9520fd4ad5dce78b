// Which container and Kubernetes pod, or which Slurm job, a process runs
// in, from its /proc/<pid>/cgroup. Pure functions on text: every runtime's
// and driver's spelling is a unit test, and the exporter never talks to the
// Kubernetes API or to slurmctld. The pod UID comes out as kube-state-metrics
// prints it in kube_pod_info{uid}, the job id as SLURM_JOB_ID (NCCL
// Inspector's slurm_job_id), so they join.
//
// Recognised paths (cgroup v2 "0::<path>" and any cgroup v1 hierarchy):
//   systemd driver:  .../kubepods-burstable-pod<uid, '_' for '-'>.slice/
//                    cri-containerd-<id>.scope  (crio-<id>.scope, docker-)
//   cgroupfs driver: /kubepods/burstable/pod<uid>/<id>  (crio-<id>)
//   no Kubernetes:   /docker/<id>, /system.slice/docker-<id>.scope
//   Slurm, cgroup/v2: /system.slice/slurmstepd.scope/job_<id>/step_<s>/...
//                     (<node>_slurmstepd.scope with several slurmd)
//   Slurm, cgroup/v1: /slurm/uid_<uid>/job_<id>/step_<s>/task_<t>
//                     (/slurm_<node>/... with several slurmd)
#pragma once

#include <string>
#include <string_view>

namespace rnic::nl {

struct ContainerRef {
  std::string pod_uid;       // "" when not in a Kubernetes pod
  std::string container_id;  // "" when not in a container
  std::string slurm_job_id;  // "1234"; "" when not in a Slurm job's cgroup
  [[nodiscard]] bool empty() const {
    return pod_uid.empty() && container_id.empty() && slurm_job_id.empty();
  }
  bool operator==(const ContainerRef&) const = default;
};

// One cgroup path ("/kubepods.slice/...").
[[nodiscard]] ContainerRef ParseCgroupPath(std::string_view path);

// A whole /proc/<pid>/cgroup: the v2 line ("0::") if it names a container,
// else the first v1 line that does. A process in a cgroup namespace sees
// "0::/" and is not attributed.
[[nodiscard]] ContainerRef ParseCgroupFile(std::string_view text);

}  // namespace rnic::nl
