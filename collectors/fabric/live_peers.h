// Live peers: the hosts this host's applications hold RDMA connections to,
// read from the rdma_cm IDs of every device (RES_CM_ID_GET), so the fabric
// probe measures first the pairs that carry real traffic. Only rdma_cm
// knows the remote address: QPs connected by an application's own
// out-of-band exchange (NCCL's, MPI's) show in the QP dump with a remote QP
// number and no remote host, and are not seen here.
//
// This file holds the reading (one function, injected into the engine) and
// the selection and merge, plain functions the tests drive directly.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic::fabric {

// One established connection of this host, as the cm_id dump shows it.
struct LiveConnection {
  std::string local_ip;
  int local_port = 0;  // the rdma_cm port
  std::string remote_ip;
  int remote_port = 0;
  std::int64_t pid = -1;  // -1: a kernel consumer (kern_name)
  bool operator==(const LiveConnection&) const = default;
};

// The connected IDs of every device (state CONNECT, a connected port space
// and QP type, a destination address); errors are the dump's.
using LiveReader = std::function<Result<std::vector<LiveConnection>>()>;
// The connected IDs of every device `t` lists (RDMA_NLDEV_CMD_GET, then a
// RES_CM_ID_GET dump of each).
[[nodiscard]] Result<std::vector<LiveConnection>> ReadLiveConnections(
    nl::NetlinkTransport& t);
// The ids of this process's threads (/proc/self/task) and the process id.
[[nodiscard]] std::set<std::int64_t> OwnThreadIds();
// Reads the kernel: opens NETLINK_RDMA, lists the devices, dumps their IDs.
[[nodiscard]] LiveReader KernelLiveReader();

// What is not an application's connection to another host.
struct LiveExclusions {
  // This exporter's threads: its probes and the connections its responder
  // accepted. The kernel names an ID's owner by the thread that made it
  // (the probe's and the responder's threads, not the process id), in
  // this process's PID namespace.
  std::set<std::int64_t> own_pids;
  // The fabric probe's rdma_cm port: probes of any exporter on this host.
  int fabric_port = 0;
  // This host's own addresses (its RDMA addresses and host addresses):
  // connections between its own devices.
  std::set<std::string> own_ips;
};

struct LivePeer {
  std::string host;          // the name `known` gives it, or the remote address
  bool in_peer_set = false;  // named by `known`
  int connections = 0;
  bool operator==(const LivePeer&) const = default;
};

struct LiveSelection {
  std::vector<LivePeer> peers;  // at most max_peers, most connections first
  std::size_t found = 0;        // distinct hosts before the bound
};

// Groups the connections by remote host and keeps the `max_peers` with the
// most connections (ties: by name), leaving out the excluded ones, loopback,
// unspecified and IPv6 link-local addresses. `known` maps an address to
// the host that has it (a peer-set host by its name or an RDMA address it
// announced in /fabric/addresses; a live peer by the other addresses it
// announced); other addresses are peers of their own.
[[nodiscard]] LiveSelection SelectLivePeers(
    std::span<const LiveConnection> connections, const LiveExclusions& ex,
    const std::map<std::string, std::string>& known, int max_peers);

// The period's targets with the live peers merged in, live first.
struct LiveMerge {
  std::vector<std::string> targets;  // live peers in rank order, then the rest
  std::set<std::string> live;        // the live peers among them
  std::set<std::string> dropped;     // schedule targets given up for them
};

// Merges ranked live peers into the schedule's `targets`. A live peer that
// is a target already stays (and counts as live). Others take, in a partial
// mesh, the slots of the targets outside this host's group (`own_group`
// lists the targets inside it, which keep theirs), so the peers and
// connections the schedule planned are not exceeded; in a full mesh they
// are added while the targets stay within `max_peers` (0: no bound).
[[nodiscard]] LiveMerge MergeLivePeers(std::span<const std::string> live,
                                       const std::set<std::string>& targets,
                                       const std::set<std::string>& own_group,
                                       bool partial, int max_peers);

}  // namespace rnic::fabric
