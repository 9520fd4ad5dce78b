#include "collectors/metrics/hw_counters.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/metrics/family.h"

namespace rnic {
namespace {

struct Entry {
  std::string_view name;
  std::string_view help;
  HwCounterKind kind = HwCounterKind::kCounter;
  int width = 64;
};

constexpr HwCounterKind kC = HwCounterKind::kCounter;
constexpr HwCounterKind kG = HwCounterKind::kGauge;

// Descriptions written from the drivers' sources (drivers/infiniband/...):
// sw/rxe/rxe_hw_counters.c, hw/mlx5/counters.c, hw/irdma/verbs.c (also
// i40iw), hw/bnxt_re/hw_counters.c, hw/efa/efa_verbs.c, hw/hfi1/{chip,verbs}.c.
// Widths: mlx5 reads its Q counters as __be32; its congestion, PPCNT and
// flow counters are 64-bit; the other drivers hand out u64 values.
constexpr Entry kTable[] = {
    // --- rxe (Soft-RoCE) ---
    {"sent_pkts", "Packets sent (rxe hw counter sent_pkts)."},
    {"rcvd_pkts", "Packets received (rxe hw counter rcvd_pkts)."},
    {"out_of_seq_request",
     "Requests received with a PSN beyond the expected one, i.e. after a "
     "gap (rxe hw counter out_of_seq_request)."},
    {"rcvd_rnr_err",
     "RNR NAKs received: the peer had no receive WQE posted (rxe hw counter "
     "rcvd_rnr_err)."},
    {"send_rnr_err",
     "RNR NAKs sent because no receive WQE was posted locally (rxe hw counter "
     "send_rnr_err)."},
    {"rcvd_seq_err",
     "NAK sequence errors received by the requester (rxe hw counter "
     "rcvd_seq_err)."},
    {"ack_deferred",
     "Acknowledgements the responder deferred (rxe hw counter ack_deferred)."},
    {"retry_exceeded_err",
     "Requests that ran out of transport retries; the QP moved to the error "
     "state (rxe hw counter retry_exceeded_err)."},
    {"retry_rnr_exceeded_err",
     "Requests that ran out of RNR retries; the QP moved to the error state "
     "(rxe hw counter retry_rnr_exceeded_err)."},
    {"completer_retry_err",
     "Retransmissions started by the completer after a timeout or a NAK (rxe "
     "hw counter completer_retry_err)."},
    {"send_err",
     "Packets the device failed to send (rxe hw counter send_err)."},
    {"link_downed", "Times the port went down (rxe hw counter link_downed)."},
    {"rdma_sends", "SEND operations transmitted (rxe hw counter rdma_sends)."},
    {"rdma_recvs", "SEND operations received (rxe hw counter rdma_recvs)."},

    // --- mlx5 Q counters (32-bit) ---
    {"rx_write_requests",
     "RDMA WRITE requests received by the responder (mlx5 Q counter "
     "rx_write_requests).",
     kC, 32},
    {"rx_read_requests",
     "RDMA READ requests received by the responder (mlx5 Q counter "
     "rx_read_requests).",
     kC, 32},
    {"rx_atomic_requests",
     "Atomic requests received by the responder (mlx5 Q counter "
     "rx_atomic_requests).",
     kC, 32},
    {"rx_dct_connect",
     "DCT connect requests received (mlx5 Q counter rx_dct_connect).", kC, 32},
    {"out_of_buffer",
     "Packets dropped because no receive WQE was available on the QP (mlx5 Q "
     "counter out_of_buffer).",
     kC, 32},
    {"out_of_sequence",
     "Packets received out of sequence (mlx5 Q counter out_of_sequence).", kC,
     32},
    {"duplicate_request",
     "Duplicate requests received by the responder, mostly retransmissions "
     "from the peer (mlx5 Q counter / rxe hw counter duplicate_request).",
     kC, 32},
    {"rnr_nak_retry_err",
     "RNR NAKs received while the RNR retry limit was not yet exceeded (mlx5 "
     "Q counter rnr_nak_retry_err).",
     kC, 32},
    {"packet_seq_err",
     "NAK sequence error packets received while the retry limit was not yet "
     "exceeded (mlx5 Q counter packet_seq_err).",
     kC, 32},
    {"implied_nak_seq_err",
     "ACKs whose PSN was larger than expected for an RDMA READ or atomic "
     "response, an implied NAK (mlx5 Q counter implied_nak_seq_err).",
     kC, 32},
    {"local_ack_timeout_err",
     "ACK timer expirations on sending RC/XRC/DCT QPs; the QP retransmits "
     "(mlx5 Q counter local_ack_timeout_err).",
     kC, 32},
    {"resp_local_length_error",
     "Responder: incoming message longer than the posted receive buffer "
     "(mlx5 Q counter resp_local_length_error).",
     kC, 32},
    {"resp_cqe_error",
     "Responder completions with an error (mlx5 Q counter resp_cqe_error).", kC,
     32},
    {"req_cqe_error",
     "Requester completions with an error (mlx5 Q counter req_cqe_error).", kC,
     32},
    {"req_remote_invalid_request",
     "Requester: remote invalid request NAKs received (mlx5 Q counter "
     "req_remote_invalid_request).",
     kC, 32},
    {"req_remote_access_errors",
     "Requester: remote access error NAKs received (mlx5 Q counter "
     "req_remote_access_errors).",
     kC, 32},
    {"resp_remote_access_errors",
     "Responder: remote access errors such as a bad rkey or missing "
     "permission (mlx5 Q counter resp_remote_access_errors).",
     kC, 32},
    {"resp_cqe_flush_error",
     "Responder completions flushed because the QP was in the error state "
     "(mlx5 Q counter resp_cqe_flush_error).",
     kC, 32},
    {"req_cqe_flush_error",
     "Requester completions flushed because the QP was in the error state "
     "(mlx5 Q counter req_cqe_flush_error).",
     kC, 32},
    {"req_transport_retries_exceeded",
     "Requests that ran out of transport retries; the QP moved to the error "
     "state (mlx5 Q counter req_transport_retries_exceeded).",
     kC, 32},
    {"req_rnr_retries_exceeded",
     "Requests that ran out of RNR retries; the QP moved to the error state "
     "(mlx5 Q counter req_rnr_retries_exceeded).",
     kC, 32},
    {"roce_adp_retrans",
     "RoCE adaptive retransmissions (mlx5 Q counter roce_adp_retrans).", kC,
     32},
    {"roce_adp_retrans_to",
     "Timeouts during RoCE adaptive retransmission (mlx5 Q counter "
     "roce_adp_retrans_to).",
     kC, 32},
    {"roce_slow_restart",
     "Times RoCE slow restart was used (mlx5 Q counter roce_slow_restart).", kC,
     32},
    {"roce_slow_restart_cnps",
     "CNPs generated during RoCE slow restart (mlx5 Q counter "
     "roce_slow_restart_cnps).",
     kC, 32},
    {"roce_slow_restart_trans",
     "Transitions into the RoCE slow restart state (mlx5 Q counter "
     "roce_slow_restart_trans).",
     kC, 32},
    // --- mlx5 congestion, PPCNT and optional flow counters (64-bit) ---
    {"rp_cnp_ignored",
     "CNPs received and ignored by the reaction point; should not grow when "
     "RoCE congestion control is enabled (mlx5 hw counter rp_cnp_ignored)."},
    {"rp_cnp_handled",
     "CNPs handled by the reaction point to lower the sending rate, DCQCN "
     "(mlx5/bnxt_re hw counter rp_cnp_handled)."},
    {"np_ecn_marked_roce_packets",
     "RoCEv2 packets received with the ECN congestion-experienced mark "
     "(mlx5/bnxt_re hw counter np_ecn_marked_roce_packets)."},
    {"np_cnp_sent",
     "CNPs sent by the notification point after ECN-marked packets (mlx5 hw "
     "counter np_cnp_sent)."},
    {"rx_icrc_encapsulated",
     "RoCE packets received with an ICRC error (mlx5 hw counter "
     "rx_icrc_encapsulated)."},
    {"cc_rx_ce_pkts",
     "Optional counter: packets received with the ECN CE mark (mlx5 hw "
     "counter cc_rx_ce_pkts)."},
    {"cc_rx_cnp_pkts",
     "Optional counter: CNP packets received (mlx5 hw counter "
     "cc_rx_cnp_pkts)."},
    {"cc_tx_cnp_pkts",
     "Optional counter: CNP packets sent (mlx5 hw counter cc_tx_cnp_pkts)."},
    {"rdma_tx_packets",
     "Optional counter: RDMA packets sent (mlx5 hw counter rdma_tx_packets)."},
    {"rdma_tx_bytes",
     "Optional counter: RDMA bytes sent (mlx5 hw counter rdma_tx_bytes)."},
    {"rdma_rx_packets",
     "Optional counter: RDMA packets received (mlx5 hw counter "
     "rdma_rx_packets)."},
    {"rdma_rx_bytes",
     "Optional counter: RDMA bytes received (mlx5 hw counter rdma_rx_bytes)."},

    // --- irdma / i40iw (Intel) ---
    {"ip4InDiscards",
     "IPv4 packets discarded on receive (irdma/i40iw hw counter "
     "ip4InDiscards)."},
    {"ip4InTruncatedPkts",
     "IPv4 packets received truncated (irdma/i40iw hw counter "
     "ip4InTruncatedPkts)."},
    {"ip4OutNoRoutes",
     "IPv4 packets dropped for lack of a route (irdma/i40iw hw counter "
     "ip4OutNoRoutes)."},
    {"ip6InDiscards",
     "IPv6 packets discarded on receive (irdma/i40iw hw counter "
     "ip6InDiscards)."},
    {"ip6InTruncatedPkts",
     "IPv6 packets received truncated (irdma/i40iw hw counter "
     "ip6InTruncatedPkts)."},
    {"ip6OutNoRoutes",
     "IPv6 packets dropped for lack of a route (irdma/i40iw hw counter "
     "ip6OutNoRoutes)."},
    {"tcpRetransSegs",
     "iWARP TCP segments retransmitted (irdma/i40iw hw counter "
     "tcpRetransSegs)."},
    {"tcpInOptErrors",
     "iWARP TCP segments received with option errors (irdma/i40iw hw counter "
     "tcpInOptErrors)."},
    {"tcpInProtoErrors",
     "iWARP TCP segments received with protocol errors (irdma/i40iw hw counter "
     "tcpInProtoErrors)."},
    {"rxVlanErrors",
     "Packets received with VLAN errors (irdma/i40iw hw counter "
     "rxVlanErrors)."},
    {"ip4InOctets",
     "IPv4 bytes received (irdma/i40iw hw counter ip4InOctets)."},
    {"ip4InPkts", "IPv4 packets received (irdma/i40iw hw counter ip4InPkts)."},
    {"ip4InReasmRqd",
     "IPv4 fragments received that needed reassembly (irdma/i40iw hw counter "
     "ip4InReasmRqd)."},
    {"ip4InMcastPkts",
     "IPv4 multicast packets received (irdma/i40iw hw counter "
     "ip4InMcastPkts)."},
    {"ip4OutOctets", "IPv4 bytes sent (irdma/i40iw hw counter ip4OutOctets)."},
    {"ip4OutPkts", "IPv4 packets sent (irdma/i40iw hw counter ip4OutPkts)."},
    {"ip4OutSegRqd",
     "IPv4 packets sent that needed segmentation (irdma/i40iw hw counter "
     "ip4OutSegRqd)."},
    {"ip4OutMcastPkts",
     "IPv4 multicast packets sent (irdma/i40iw hw counter ip4OutMcastPkts)."},
    {"ip6InOctets",
     "IPv6 bytes received (irdma/i40iw hw counter ip6InOctets)."},
    {"ip6InPkts", "IPv6 packets received (irdma/i40iw hw counter ip6InPkts)."},
    {"ip6InReasmRqd",
     "IPv6 fragments received that needed reassembly (irdma/i40iw hw counter "
     "ip6InReasmRqd)."},
    {"ip6InMcastPkts",
     "IPv6 multicast packets received (irdma/i40iw hw counter "
     "ip6InMcastPkts)."},
    {"ip6OutOctets", "IPv6 bytes sent (irdma/i40iw hw counter ip6OutOctets)."},
    {"ip6OutPkts", "IPv6 packets sent (irdma/i40iw hw counter ip6OutPkts)."},
    {"ip6OutSegRqd",
     "IPv6 packets sent that needed segmentation (irdma/i40iw hw counter "
     "ip6OutSegRqd)."},
    {"ip6OutMcastPkts",
     "IPv6 multicast packets sent (irdma/i40iw hw counter ip6OutMcastPkts)."},
    {"tcpInSegs",
     "iWARP TCP segments received (irdma/i40iw hw counter tcpInSegs)."},
    {"tcpOutSegs",
     "iWARP TCP segments sent (irdma/i40iw hw counter tcpOutSegs)."},
    {"iwInRdmaReads",
     "iWARP RDMA READ requests received (irdma/i40iw hw counter "
     "iwInRdmaReads)."},
    {"iwInRdmaSends",
     "iWARP SEND messages received (irdma/i40iw hw counter iwInRdmaSends)."},
    {"iwInRdmaWrites",
     "iWARP RDMA WRITE messages received (irdma/i40iw hw counter "
     "iwInRdmaWrites)."},
    {"iwOutRdmaReads",
     "iWARP RDMA READ requests sent (irdma/i40iw hw counter iwOutRdmaReads)."},
    {"iwOutRdmaSends",
     "iWARP SEND messages sent (irdma/i40iw hw counter iwOutRdmaSends)."},
    {"iwOutRdmaWrites",
     "iWARP RDMA WRITE messages sent (irdma/i40iw hw counter "
     "iwOutRdmaWrites)."},
    {"iwRdmaBnd",
     "Memory window bind operations (irdma/i40iw hw counter iwRdmaBnd)."},
    {"iwRdmaInv",
     "Memory invalidate operations (irdma/i40iw hw counter iwRdmaInv)."},
    {"cnpHandled",
     "CNPs handled by the reaction point (irdma hw counter cnpHandled)."},
    {"cnpIgnored", "CNPs received and ignored (irdma hw counter cnpIgnored)."},
    {"cnpSent",
     "CNPs sent by the notification point (irdma hw counter cnpSent)."},
    {"ip4InMcastOctets",
     "IPv4 multicast bytes received (irdma hw counter ip4InMcastOctets)."},
    {"ip4OutMcastOctets",
     "IPv4 multicast bytes sent (irdma hw counter ip4OutMcastOctets)."},
    {"ip6InMcastOctets",
     "IPv6 multicast bytes received (irdma hw counter ip6InMcastOctets)."},
    {"ip6OutMcastOctets",
     "IPv6 multicast bytes sent (irdma hw counter ip6OutMcastOctets)."},
    {"RxUDP", "UDP (RoCEv2) packets received (irdma hw counter RxUDP)."},
    {"TxUDP", "UDP (RoCEv2) packets sent (irdma hw counter TxUDP)."},
    {"RxECNMrkd",
     "Packets received with an ECN mark (irdma hw counter RxECNMrkd)."},

    // --- bnxt_re (Broadcom) ---
    {"active_pds",
     "Protection domains currently allocated (bnxt_re hw counter active_pds).",
     kG},
    {"active_ahs",
     "Address handles currently allocated (bnxt_re hw counter active_ahs).",
     kG},
    {"active_qps",
     "Queue pairs currently allocated (bnxt_re hw counter active_qps).", kG},
    {"active_rc_qps",
     "RC queue pairs currently allocated (bnxt_re hw counter active_rc_qps).",
     kG},
    {"active_ud_qps",
     "UD queue pairs currently allocated (bnxt_re hw counter active_ud_qps).",
     kG},
    {"active_srqs",
     "Shared receive queues currently allocated (bnxt_re hw counter "
     "active_srqs).",
     kG},
    {"active_cqs",
     "Completion queues currently allocated (bnxt_re hw counter active_cqs).",
     kG},
    {"active_mrs",
     "Memory regions currently registered (bnxt_re hw counter active_mrs).",
     kG},
    {"active_mws",
     "Memory windows currently allocated (bnxt_re hw counter active_mws).", kG},
    {"watermark_pds",
     "Highest number of protection domains allocated at once (bnxt_re hw "
     "counter watermark_pds).",
     kG},
    {"watermark_ahs",
     "Highest number of address handles allocated at once (bnxt_re hw counter "
     "watermark_ahs).",
     kG},
    {"watermark_qps",
     "Highest number of queue pairs allocated at once (bnxt_re hw counter "
     "watermark_qps).",
     kG},
    {"watermark_rc_qps",
     "Highest number of RC queue pairs allocated at once (bnxt_re hw counter "
     "watermark_rc_qps).",
     kG},
    {"watermark_ud_qps",
     "Highest number of UD queue pairs allocated at once (bnxt_re hw counter "
     "watermark_ud_qps).",
     kG},
    {"watermark_srqs",
     "Highest number of shared receive queues allocated at once (bnxt_re hw "
     "counter watermark_srqs).",
     kG},
    {"watermark_cqs",
     "Highest number of completion queues allocated at once (bnxt_re hw "
     "counter watermark_cqs).",
     kG},
    {"watermark_mrs",
     "Highest number of memory regions registered at once (bnxt_re hw counter "
     "watermark_mrs).",
     kG},
    {"watermark_mws",
     "Highest number of memory windows allocated at once (bnxt_re hw counter "
     "watermark_mws).",
     kG},
    {"db_fifo_register",
     "Doorbell FIFO occupancy register as last read (bnxt_re hw counter "
     "db_fifo_register).",
     kG},
    {"resize_cq_cnt",
     "Completion queue resize operations (bnxt_re hw counter resize_cq_cnt)."},
    {"rx_pkts",
     "Packets received by the RDMA function (bnxt_re/efa hw counter rx_pkts)."},
    {"rx_bytes",
     "Bytes received by the RDMA function (bnxt_re/efa hw counter rx_bytes)."},
    {"tx_pkts",
     "Packets sent by the RDMA function (bnxt_re/efa hw counter tx_pkts)."},
    {"tx_bytes",
     "Bytes sent by the RDMA function (bnxt_re/efa hw counter tx_bytes)."},
    {"recoverable_errors",
     "Recoverable errors (bnxt_re hw counter recoverable_errors)."},
    {"tx_roce_errors",
     "RoCE packets that failed to be sent (bnxt_re hw counter "
     "tx_roce_errors)."},
    {"tx_roce_discards",
     "RoCE packets discarded on send (bnxt_re hw counter tx_roce_discards)."},
    {"rx_roce_errors",
     "RoCE packets received with errors (bnxt_re hw counter rx_roce_errors)."},
    {"rx_roce_discards",
     "RoCE packets discarded on receive (bnxt_re hw counter "
     "rx_roce_discards)."},
    {"to_retransmits",
     "Retransmissions after an ACK timeout (bnxt_re hw counter "
     "to_retransmits)."},
    {"seq_err_naks_rcvd",
     "NAK sequence errors received (bnxt_re hw counter seq_err_naks_rcvd)."},
    {"max_retry_exceeded",
     "Requests that ran out of retries (bnxt_re hw counter "
     "max_retry_exceeded)."},
    {"rnr_naks_rcvd", "RNR NAKs received (bnxt_re hw counter rnr_naks_rcvd)."},
    {"missing_resp",
     "Requests whose response never arrived (bnxt_re hw counter "
     "missing_resp)."},
    {"unrecoverable_err",
     "Unrecoverable errors (bnxt_re hw counter unrecoverable_err)."},
    {"bad_resp_err",
     "Malformed responses received (bnxt_re hw counter bad_resp_err)."},
    {"local_qp_op_err",
     "Local QP operation errors (bnxt_re hw counter local_qp_op_err)."},
    {"local_protection_err",
     "Local protection errors (bnxt_re hw counter local_protection_err)."},
    {"mem_mgmt_op_err",
     "Memory management operation errors (bnxt_re hw counter "
     "mem_mgmt_op_err)."},
    {"remote_invalid_req_err",
     "Remote invalid request errors (bnxt_re hw counter "
     "remote_invalid_req_err)."},
    {"remote_access_err",
     "Remote access errors (bnxt_re hw counter remote_access_err)."},
    {"remote_op_err",
     "Remote operation errors (bnxt_re hw counter remote_op_err)."},
    {"dup_req", "Duplicate requests received (bnxt_re hw counter dup_req)."},
    {"res_exceed_max",
     "Responder: requests beyond the maximum outstanding (bnxt_re hw counter "
     "res_exceed_max)."},
    {"res_length_mismatch",
     "Responder: length mismatches (bnxt_re hw counter res_length_mismatch)."},
    {"res_exceeds_wqe",
     "Responder: messages larger than the receive WQE (bnxt_re hw counter "
     "res_exceeds_wqe)."},
    {"res_opcode_err",
     "Responder: opcode errors (bnxt_re hw counter res_opcode_err)."},
    {"res_rx_invalid_rkey",
     "Responder: invalid rkey on receive (bnxt_re hw counter "
     "res_rx_invalid_rkey)."},
    {"res_rx_domain_err",
     "Responder: protection domain errors on receive (bnxt_re hw counter "
     "res_rx_domain_err)."},
    {"res_rx_no_perm",
     "Responder: access without permission on receive (bnxt_re hw counter "
     "res_rx_no_perm)."},
    {"res_rx_range_err",
     "Responder: out-of-range access on receive (bnxt_re hw counter "
     "res_rx_range_err)."},
    {"res_tx_invalid_rkey",
     "Responder: invalid rkey on send (bnxt_re hw counter "
     "res_tx_invalid_rkey)."},
    {"res_tx_domain_err",
     "Responder: protection domain errors on send (bnxt_re hw counter "
     "res_tx_domain_err)."},
    {"res_tx_no_perm",
     "Responder: access without permission on send (bnxt_re hw counter "
     "res_tx_no_perm)."},
    {"res_tx_range_err",
     "Responder: out-of-range access on send (bnxt_re hw counter "
     "res_tx_range_err)."},
    {"res_irrq_oflow",
     "Responder: inbound read request queue overflows (bnxt_re hw counter "
     "res_irrq_oflow)."},
    {"res_unsup_opcode",
     "Responder: unsupported opcodes (bnxt_re hw counter res_unsup_opcode)."},
    {"res_unaligned_atomic",
     "Responder: unaligned atomic requests (bnxt_re hw counter "
     "res_unaligned_atomic)."},
    {"res_rem_inv_err",
     "Responder: remote invalidate errors (bnxt_re hw counter "
     "res_rem_inv_err)."},
    {"res_mem_err",
     "Responder: memory errors (bnxt_re hw counter res_mem_err)."},
    {"res_srq_err", "Responder: SRQ errors (bnxt_re hw counter res_srq_err)."},
    {"res_cmp_err",
     "Responder: completion errors (bnxt_re hw counter res_cmp_err)."},
    {"res_invalid_dup_rkey",
     "Responder: invalid rkey on a duplicate request (bnxt_re hw counter "
     "res_invalid_dup_rkey)."},
    {"res_wqe_format_err",
     "Responder: malformed WQEs (bnxt_re hw counter res_wqe_format_err)."},
    {"res_cq_load_err",
     "Responder: CQ load errors (bnxt_re hw counter res_cq_load_err)."},
    {"res_srq_load_err",
     "Responder: SRQ load errors (bnxt_re hw counter res_srq_load_err)."},
    {"res_tx_pci_err",
     "Responder: PCIe errors on send (bnxt_re hw counter res_tx_pci_err)."},
    {"res_rx_pci_err",
     "Responder: PCIe errors on receive (bnxt_re hw counter res_rx_pci_err)."},
    {"oos_drop_count",
     "Out-of-sequence packets dropped (bnxt_re hw counter oos_drop_count)."},
    {"tx_atomic_req",
     "Atomic requests sent (bnxt_re hw counter tx_atomic_req)."},
    {"tx_read_req",
     "RDMA READ requests sent (bnxt_re hw counter tx_read_req)."},
    {"tx_read_resp",
     "RDMA READ responses sent (bnxt_re hw counter tx_read_resp)."},
    {"tx_write_req",
     "RDMA WRITE requests sent (bnxt_re hw counter tx_write_req)."},
    {"tx_send_req", "SEND requests sent (bnxt_re hw counter tx_send_req)."},
    {"tx_roce_only_pkts",
     "RoCE packets sent (bnxt_re hw counter tx_roce_only_pkts)."},
    {"tx_roce_only_bytes",
     "RoCE bytes sent (bnxt_re hw counter tx_roce_only_bytes)."},
    {"rx_atomic_req",
     "Atomic requests received (bnxt_re hw counter rx_atomic_req)."},
    {"rx_read_req",
     "RDMA READ requests received (bnxt_re hw counter rx_read_req)."},
    {"rx_read_resp",
     "RDMA READ responses received (bnxt_re hw counter rx_read_resp)."},
    {"rx_write_req",
     "RDMA WRITE requests received (bnxt_re hw counter rx_write_req)."},
    {"rx_send_req", "SEND requests received (bnxt_re hw counter rx_send_req)."},
    {"rx_roce_only_pkts",
     "RoCE packets received (bnxt_re hw counter rx_roce_only_pkts)."},
    {"rx_roce_only_bytes",
     "RoCE bytes received (bnxt_re hw counter rx_roce_only_bytes)."},
    {"rx_roce_good_pkts",
     "RoCE packets received without error (bnxt_re hw counter "
     "rx_roce_good_pkts)."},
    {"rx_roce_good_bytes",
     "RoCE bytes received without error (bnxt_re hw counter "
     "rx_roce_good_bytes)."},
    {"rx_out_of_buffer",
     "Packets dropped for lack of a receive buffer (bnxt_re hw counter "
     "rx_out_of_buffer)."},
    {"tx_cnp_pkts", "CNP packets sent (bnxt_re hw counter tx_cnp_pkts)."},
    {"rx_cnp_pkts", "CNP packets received (bnxt_re hw counter rx_cnp_pkts)."},
    {"rx_ecn_marked_pkts",
     "Packets received with an ECN mark (bnxt_re hw counter "
     "rx_ecn_marked_pkts)."},
    {"pacing_reschedule",
     "Doorbell pacing reschedules (bnxt_re hw counter pacing_reschedule)."},
    {"pacing_complete",
     "Doorbell pacing completions (bnxt_re hw counter pacing_complete)."},
    {"pacing_alerts",
     "Doorbell pacing alerts (bnxt_re hw counter pacing_alerts)."},

    // --- efa (AWS Elastic Fabric Adapter) ---
    {"submitted_cmds",
     "Admin commands submitted to the device (efa hw counter submitted_cmds)."},
    {"completed_cmds",
     "Admin commands completed by the device (efa hw counter completed_cmds)."},
    {"cmds_err", "Admin commands that failed (efa hw counter cmds_err)."},
    {"no_completion_cmds",
     "Admin commands that never completed (efa hw counter "
     "no_completion_cmds)."},
    {"keep_alive_rcvd",
     "Keep-alive events received from the device (efa hw counter "
     "keep_alive_rcvd)."},
    {"alloc_pd_err",
     "Failed protection domain allocations (efa hw counter alloc_pd_err)."},
    {"create_qp_err", "Failed QP creations (efa hw counter create_qp_err)."},
    {"create_cq_err", "Failed CQ creations (efa hw counter create_cq_err)."},
    {"reg_mr_err", "Failed memory registrations (efa hw counter reg_mr_err)."},
    {"alloc_ucontext_err",
     "Failed user context allocations (efa hw counter alloc_ucontext_err)."},
    {"create_ah_err",
     "Failed address handle creations (efa hw counter create_ah_err)."},
    {"mmap_err", "Failed mmap calls (efa hw counter mmap_err)."},
    {"rx_drops", "Packets received and dropped (efa hw counter rx_drops)."},
    {"send_bytes",
     "Bytes sent with SEND operations (efa hw counter send_bytes)."},
    {"send_wrs", "SEND work requests completed (efa hw counter send_wrs)."},
    {"recv_bytes",
     "Bytes received with SEND operations (efa hw counter recv_bytes)."},
    {"recv_wrs", "Receive work requests completed (efa hw counter recv_wrs)."},
    {"rdma_read_wrs",
     "RDMA READ work requests completed (efa hw counter rdma_read_wrs)."},
    {"rdma_read_bytes",
     "Bytes read with RDMA READ (efa hw counter rdma_read_bytes)."},
    {"rdma_read_wr_err",
     "RDMA READ work requests that failed (efa hw counter rdma_read_wr_err)."},
    {"rdma_read_resp_bytes",
     "Bytes returned in RDMA READ responses (efa hw counter "
     "rdma_read_resp_bytes)."},
    {"rdma_write_wrs",
     "RDMA WRITE work requests completed (efa hw counter rdma_write_wrs)."},
    {"rdma_write_bytes",
     "Bytes written with RDMA WRITE (efa hw counter rdma_write_bytes)."},
    {"rdma_write_wr_err",
     "RDMA WRITE work requests that failed (efa hw counter "
     "rdma_write_wr_err)."},
    {"rdma_write_recv_bytes",
     "Bytes received through RDMA WRITE by peers (efa hw counter "
     "rdma_write_recv_bytes)."},
    {"retrans_bytes",
     "SRD bytes retransmitted (efa hw counter retrans_bytes)."},
    {"retrans_pkts",
     "SRD packets retransmitted (efa hw counter retrans_pkts)."},
    {"retrans_timeout_events",
     "SRD retransmission timeouts that changed the network path (efa hw "
     "counter retrans_timeout_events)."},
    {"unresponsive_remote_events",
     "Times a remote SRD peer stopped responding (efa hw counter "
     "unresponsive_remote_events)."},
    {"impaired_remote_conn_events",
     "Times an SRD connection was impaired and rate-limited (efa hw counter "
     "impaired_remote_conn_events)."},

    // --- hfi1 (Omni-Path); 32-bit hardware registers carry a ",32" suffix
    // but the driver extends them to 64 bits ---
    {"RcvOverflow,32",
     "Packets dropped because a receive buffer overflowed (hfi1 hw counter "
     "RcvOverflow,32)."},
    {"RxLenErr,32",
     "Packets received with a length error (hfi1 hw counter RxLenErr,32)."},
    {"RxShrErr,32",
     "Packets received too short (hfi1 hw counter RxShrErr,32)."},
    {"RxICrcErr,32",
     "Packets received with an ICRC error (hfi1 hw counter RxICrcErr,32)."},
    {"RxEbpCnt,32",
     "Packets received with an end-bad-packet marker (hfi1 hw counter "
     "RxEbpCnt,32)."},
    {"DcRecvErr", "Link-level receive errors (hfi1 hw counter DcRecvErr)."},
    {"DcRmtPhyErr",
     "Remote physical errors received (hfi1 hw counter DcRmtPhyErr)."},
    {"DcDroppedPkt",
     "Packets dropped by the link layer (hfi1 hw counter DcDroppedPkt)."},
    {"DcXmitFlits",
     "Flits sent by the link layer (hfi1 hw counter DcXmitFlits)."},
    {"DcRcvFlits",
     "Flits received by the link layer (hfi1 hw counter DcRcvFlits)."},
    {"DcXmitPkts",
     "Packets sent by the link layer (hfi1 hw counter DcXmitPkts)."},
    {"DcRcvPkts",
     "Packets received by the link layer (hfi1 hw counter DcRcvPkts)."},
    {"DRIVER_KernIntr",
     "Interrupts handled by the driver (hfi1 hw counter DRIVER_KernIntr)."},
    {"DRIVER_ErrorIntr",
     "Error interrupts handled by the driver (hfi1 hw counter "
     "DRIVER_ErrorIntr)."},
    {"DRIVER_Tx_Errs",
     "Send errors seen by the driver (hfi1 hw counter DRIVER_Tx_Errs)."},
    {"DRIVER_Rcv_Errs",
     "Receive errors seen by the driver (hfi1 hw counter DRIVER_Rcv_Errs)."},
    {"DRIVER_HW_Errs",
     "Hardware errors seen by the driver (hfi1 hw counter DRIVER_HW_Errs)."},
    {"DRIVER_NoPIOBufs",
     "Times no PIO send buffer was free (hfi1 hw counter DRIVER_NoPIOBufs)."},
    {"DRIVER_CtxtsOpen",
     "Receive contexts currently open (hfi1 hw counter DRIVER_CtxtsOpen).", kG},
    {"DRIVER_RcvLen_Errs",
     "Receive length errors seen by the driver (hfi1 hw counter "
     "DRIVER_RcvLen_Errs)."},
    {"DRIVER_EgrBufFull",
     "Times the eager receive buffer was full (hfi1 hw counter "
     "DRIVER_EgrBufFull)."},
    {"DRIVER_EgrHdrFull",
     "Times the receive header queue was full (hfi1 hw counter "
     "DRIVER_EgrHdrFull)."},
    {"TxPkt", "Data packets sent (hfi1 hw counter TxPkt)."},
    {"TxWords", "Data sent, in 4-byte words (hfi1 hw counter TxWords)."},
    {"TxWait",
     "Time the port had data to send but no credits (hfi1 hw counter TxWait)."},
    {"TxDropped,32", "Packets dropped on send (hfi1 hw counter TxDropped,32)."},
    {"TxFlowStall,32", "Send flow stalls (hfi1 hw counter TxFlowStall,32)."},
    {"RxPkt", "Data packets received (hfi1 hw counter RxPkt)."},
    {"RxWords", "Data received, in 4-byte words (hfi1 hw counter RxWords)."},
    {"RcResend", "RC packets resent (hfi1 hw counter RcResend)."},
    {"RnrNak", "RNR NAKs sent (hfi1 hw counter RnrNak)."},
    {"OtherNak", "NAKs other than RNR sent (hfi1 hw counter OtherNak)."},
    {"RcTimeOut", "RC retransmission timeouts (hfi1 hw counter RcTimeOut)."},
    {"PktDrop", "Packets dropped by the driver (hfi1 hw counter PktDrop)."},
    {"RcSeqNak", "RC sequence NAKs received (hfi1 hw counter RcSeqNak)."},
    {"RcDupRew", "RC duplicate requests received (hfi1 hw counter RcDupRew)."},
    {"SeqNak", "Sequence NAKs sent (hfi1 hw counter SeqNak)."},
    {"RcAcks", "RC ACKs received (hfi1 hw counter RcAcks)."},
    {"LoopPkts",
     "Packets looped back inside the device (hfi1 hw counter LoopPkts)."},
};

struct Table {
  std::unordered_map<std::string_view, Entry> by_name;
  std::vector<std::string> owned;  // help texts built at start-up
};

const Table& GetTable() {
  static const Table* table = [] {
    auto* t = new Table();
    t->by_name.reserve(std::size(kTable) * 2);
    for (const Entry& e : kTable) t->by_name.emplace(e.name, e);
    // mlx5 in switchdev mode names the Q counters of VF/SF representor ports
    // "vport_<name>"; same meaning and width.
    std::vector<std::pair<std::string, std::string>> vport;
    for (const Entry& e : kTable) {
      if (e.width != 32) continue;
      std::string name = "vport_" + std::string(e.name);
      std::string help = std::string(e.help) +
                         " Here counted for the vport of a "
                         "switchdev representor (mlx5 hw counter " +
                         name + ").";
      vport.emplace_back(std::move(name), std::move(help));
    }
    // Two-phase so the string_views point into a vector that no longer grows.
    t->owned.reserve(vport.size() * 2);
    for (auto& [name, help] : vport) {
      t->owned.push_back(std::move(name));
      const std::string& n = t->owned.back();
      t->owned.push_back(std::move(help));
      const std::string& h = t->owned.back();
      t->by_name.emplace(n, Entry{n, h, kC, 32});
    }
    return t;
  }();
  return *table;
}

const Entry* Find(std::string_view name) {
  const auto& t = GetTable().by_name;
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

}  // namespace

std::string HwCounterFamilyName(std::string_view kernel_name) {
  const bool gauge = HwCounterKindOf(kernel_name) == HwCounterKind::kGauge;
  std::string out = "rnic_hw_";
  out += MetricNamePart(kernel_name);
  if (!gauge) out.append("_total");
  return out;
}

HwCounterMeta HwCounterFor(std::string_view kernel_name) {
  HwCounterMeta m;
  m.gauge = HwCounterKindOf(kernel_name) == HwCounterKind::kGauge;
  m.width = HwCounterWidthBits(kernel_name);
  m.family = &InternFamily(
      HwCounterFamilyName(kernel_name),
      m.gauge ? prometheus::MetricType::Gauge : prometheus::MetricType::Counter,
      "device,port", HwCounterHelp(kernel_name));
  return m;
}

std::string_view HwCounterHelp(std::string_view kernel_name) {
  const Entry* e = Find(kernel_name);
  return e ? e->help : kHwCounterGenericHelp;
}

HwCounterKind HwCounterKindOf(std::string_view kernel_name) {
  const Entry* e = Find(kernel_name);
  return e ? e->kind : HwCounterKind::kCounter;
}

int HwCounterWidthBits(std::string_view kernel_name) {
  const Entry* e = Find(kernel_name);
  return e ? e->width : 64;
}

bool HwCounterKnown(std::string_view kernel_name) {
  return Find(kernel_name) != nullptr;
}

}  // namespace rnic
