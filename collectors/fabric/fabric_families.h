// Families of the fabric collector, declared once
// (collectors/metrics/family.h). `peer` is the peer host as the peer set names
// it (its management address; "self" for probes between this host's own
// devices), `device` the local RDMA device, `remote_device` the peer's.
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::fabric::families {

using prometheus::MetricType;

inline constexpr FamilyDesc kRtt{
    "rnic_fabric_rtt_seconds", MetricType::Histogram,
    "device,peer,remote_device,operation,size_bytes",
    "Round-trip time of the fabric probe's RC ping-pong to a peer device "
    "(send: SEND/RECV and back; write: RDMA WRITE with immediate and back; "
    "read: one RDMA READ), measured on this host's clock only. Absent for a "
    "peer when fabric.group_by is set and in a partial mesh (see "
    "rnic_fabric_group_rtt_seconds)."};
inline constexpr FamilyDesc kGroupRtt{
    "rnic_fabric_group_rtt_seconds", MetricType::Histogram,
    "device,group,operation,size_bytes",
    "rnic_fabric_rtt_seconds summed over the peers sharing the value `group` "
    "of the peer label named by fabric.group_by (e.g. tor), for fabrics too "
    "large for one histogram per peer; in a partial mesh, the peers of this "
    "host's own group, with coarser buckets (1-2-5, 1 us to 100 ms)."};
inline constexpr FamilyDesc kProbes{
    "rnic_fabric_probes_total", MetricType::Counter,
    "device,peer,remote_device,operation,result",
    "Fabric probe operations by result: ok, timeout (no completion within "
    "fabric.timeout), completion_error (see "
    "rnic_fabric_completion_errors_total), not_connected (the pair had no "
    "connection this round)."};
inline constexpr FamilyDesc kCompletionErrors{
    "rnic_fabric_completion_errors_total", MetricType::Counter,
    "device,peer,remote_device,operation,status",
    "Fabric probe work completions with an error, by ibv_wc_status_str() in "
    "snake_case (transport_retry_counter_exceeded: the fabric lost the "
    "packets and every retransmission)."};
inline constexpr FamilyDesc kConnectFailures{
    "rnic_fabric_connect_failures_total", MetricType::Counter,
    "device,peer,remote_device,event",
    "Failed connection attempts to a peer device, by the rdma_cm event that "
    "ended them (addr_error, route_error, unreachable, rejected, "
    "connect_error, timeout) or local setup step."};
inline constexpr FamilyDesc kPeerUp{
    "rnic_fabric_peer_up", MetricType::Gauge, "device,peer,remote_device",
    "1 if the pair is connected and its last probe round completed every "
    "operation, else 0."};
inline constexpr FamilyDesc kReconnects{
    "rnic_fabric_reconnects_total", MetricType::Counter,
    "device,peer,remote_device",
    "Connections established to a peer device after an earlier one was "
    "lost (the first connection is not counted)."};
inline constexpr FamilyDesc kLastConnected{
    "rnic_fabric_last_connected_timestamp_seconds", MetricType::Gauge,
    "device,peer,remote_device",
    "Unix time the pair's current or last connection was established."};
inline constexpr FamilyDesc kAddressExchangeFailures{
    "rnic_fabric_address_exchange_failures_total", MetricType::Counter, "peer",
    "Failed GET /fabric/addresses to the peer's exporter (the pair list of "
    "the peer is then kept from the last answer)."};
inline constexpr FamilyDesc kPeers{
    "rnic_fabric_peers", MetricType::Gauge, "",
    "Peer hosts in the peer set (static list, file_sd files and DNS, "
    "merged)."};
inline constexpr FamilyDesc kPairs{
    "rnic_fabric_pairs", MetricType::Gauge, "",
    "Device pairs being probed (local device x peer device that share a "
    "subnet, or every pair with fabric.pairing: all)."};
inline constexpr FamilyDesc kScheduledPeers{
    "rnic_fabric_scheduled_peers", MetricType::Gauge, "",
    "Peer hosts probed in the current rotation period of the partial mesh "
    "(every peer while the peer set is within fabric.mesh.max_peers)."};
inline constexpr FamilyDesc kGroupProbes{
    "rnic_fabric_group_probes_total", MetricType::Counter, "group,result",
    "Fabric probe operations of a partial mesh (more peers than "
    "fabric.mesh.max_peers) by the peer's group and result (as "
    "rnic_fabric_probes_total), devices summed: every probe of the mesh, "
    "whose pairs change every rotation period."};
inline constexpr FamilyDesc kGroupOkRtt{
    "rnic_fabric_group_ok_rtt_seconds_total", MetricType::Counter, "group",
    "Sum of the round-trip times of the ok probes counted in "
    "rnic_fabric_group_probes_total, by the peer's group: divided by their "
    "rate, the mean round trip into the group."};
inline constexpr FamilyDesc kMeshInfo{
    "rnic_fabric_mesh_info", MetricType::Gauge, "host,group",
    "1, labelled with this host's name in the peer set (self when it is not "
    "in it) and its group in the partial mesh (ToR, rack or subnet)."};
inline constexpr FamilyDesc kPeerGroup{
    "rnic_fabric_peer_group_info", MetricType::Gauge, "peer,group",
    "1 for each peer probed per pair (all of them below "
    "fabric.mesh.max_peers, else fabric.mesh.detail_peers of this host's "
    "group), labelled with the peer's group in the partial mesh."};
inline constexpr FamilyDesc kLivePeers{
    "rnic_fabric_live_peers", MetricType::Gauge, "",
    "Hosts this host's established rdma_cm connections go to, in the last "
    "dump (fabric.live_peers; the fabric probe's own connections and this "
    "host's own addresses left out)."};
inline constexpr FamilyDesc kLivePeersProbed{
    "rnic_fabric_live_peers_probed", MetricType::Gauge, "",
    "Live peers (rnic_fabric_live_peers) probed this round, first and per "
    "pair: at most fabric.live_peers.max_peers, within the mesh's bounds."};
inline constexpr FamilyDesc kLiveDumpFailures{
    "rnic_fabric_live_peers_dump_failures_total", MetricType::Counter, "",
    "Dumps of this host's rdma_cm connections (RDMA netlink RES_CM_ID_GET) "
    "that failed; the live peers of the last good dump are kept."};
inline constexpr FamilyDesc kResponderConnections{
    "rnic_fabric_responder_connections", MetricType::Gauge, "device",
    "Connections the responder holds open on this device."};
inline constexpr FamilyDesc kResponderAccepted{
    "rnic_fabric_responder_accepted_total", MetricType::Counter, "device",
    "Connections the responder accepted on this device."};
inline constexpr FamilyDesc kResponderRefused{
    "rnic_fabric_responder_refused_total", MetricType::Counter, "device,reason",
    "Connection requests the responder refused: not_in_peer_set, "
    "too_many_connections, setup_error, or the private data check that "
    "failed (short, bad_magic, bad_version, bad_kind, bad_operations, "
    "bad_size, bad_reserved)."};
inline constexpr FamilyDesc kCpuSeconds{
    "rnic_fabric_cpu_seconds_total", MetricType::Counter, "",
    "CPU time used by the fabric probe's initiator and responder threads."};
inline constexpr FamilyDesc kBudgetDelay{
    "rnic_fabric_budget_delay_seconds_total", MetricType::Counter, "",
    "Time fabric rounds were held back beyond fabric.interval to keep within "
    "fabric.cpu_budget_percent."};

inline constexpr const FamilyDesc* kAll[] = {&kRtt,
                                             &kGroupRtt,
                                             &kProbes,
                                             &kCompletionErrors,
                                             &kConnectFailures,
                                             &kPeerUp,
                                             &kReconnects,
                                             &kLastConnected,
                                             &kAddressExchangeFailures,
                                             &kPeers,
                                             &kPairs,
                                             &kScheduledPeers,
                                             &kGroupProbes,
                                             &kGroupOkRtt,
                                             &kMeshInfo,
                                             &kPeerGroup,
                                             &kLivePeers,
                                             &kLivePeersProbed,
                                             &kLiveDumpFailures,
                                             &kResponderConnections,
                                             &kResponderAccepted,
                                             &kResponderRefused,
                                             &kCpuSeconds,
                                             &kBudgetDelay};

// Families of the /probe answer (one on-demand round, blackbox style).
inline constexpr FamilyDesc kProbeSuccess{
    "rnic_fabric_probe_success", MetricType::Gauge, "",
    "/probe: 1 if every operation to every pair of the target completed."};
inline constexpr FamilyDesc kProbeRtt{
    "rnic_fabric_probe_rtt_seconds", MetricType::Gauge,
    "device,remote_device,operation",
    "/probe: mean round-trip time of the on-demand round per pair and "
    "operation."};
inline constexpr FamilyDesc kProbeRttMin{
    "rnic_fabric_probe_rtt_min_seconds", MetricType::Gauge,
    "device,remote_device,operation",
    "/probe: lowest round-trip time of the on-demand round per pair and "
    "operation: the path's own latency, least disturbed by host scheduling "
    "(as ping's min)."};
inline constexpr FamilyDesc kProbeFailures{
    "rnic_fabric_probe_failures", MetricType::Gauge,
    "device,remote_device,operation",
    "/probe: operations of the on-demand round that failed (timeout, "
    "completion error or no connection)."};
inline constexpr FamilyDesc kProbeDuration{
    "rnic_fabric_probe_duration_seconds", MetricType::Gauge, "",
    "/probe: wall time of the on-demand round, connections included."};

}  // namespace rnic::fabric::families
