#include "collectors/metrics/hw_counters.h"

#include <gtest/gtest.h>

#include <string>

namespace rnic {
namespace {

// Lower-case kernel names pass unchanged; CamelCase ones (hfi1, irdma) become
// snake_case so promtool accepts them (the exact name stays in HELP).
TEST(HwCounterFamilyNameTest, KeepsKernelName) {
  EXPECT_EQ(HwCounterFamilyName("out_of_buffer"),
            "rnic_hw_out_of_buffer_total");
  EXPECT_EQ(HwCounterFamilyName("np_cnp_sent"), "rnic_hw_np_cnp_sent_total");
  EXPECT_EQ(HwCounterFamilyName("ip4InDiscards"),
            "rnic_hw_ip4_in_discards_total");
}

TEST(HwCounterFamilyNameTest, SanitizesCharactersMetricNamesCannotHold) {
  EXPECT_EQ(HwCounterFamilyName("RcvOverflow,32"),
            "rnic_hw_rcv_overflow_32_total");
  EXPECT_EQ(HwCounterFamilyName("Pio Reserved 31"),
            "rnic_hw_pio_reserved_31_total");
  EXPECT_EQ(HwCounterFamilyName("a-b.c/d:e"), "rnic_hw_a_b_c_d_e_total");
}

TEST(HwCounterFamilyNameTest, CamelCaseBecomesSnakeCase) {
  EXPECT_EQ(HwCounterFamilyName("DcRcvPkts"), "rnic_hw_dc_rcv_pkts_total");
  EXPECT_EQ(HwCounterFamilyName("tcpInSegs"), "rnic_hw_tcp_in_segs_total");
  EXPECT_EQ(HwCounterFamilyName("DRIVER_KernIntr"),
            "rnic_hw_driver_kern_intr_total");
  EXPECT_EQ(HwCounterFamilyName("RDMA_Sends"), "rnic_hw_rdma_sends_total");
  EXPECT_EQ(HwCounterFamilyName("VL15_dropped"), "rnic_hw_vl15_dropped_total");
}

TEST(HwCounterFamilyNameTest, GaugesHaveNoTotalSuffix) {
  EXPECT_EQ(HwCounterKindOf("active_qps"), HwCounterKind::kGauge);
  EXPECT_EQ(HwCounterFamilyName("active_qps"), "rnic_hw_active_qps");
  EXPECT_EQ(HwCounterFamilyName("watermark_mrs"), "rnic_hw_watermark_mrs");
  EXPECT_EQ(HwCounterKindOf("resize_cq_cnt"), HwCounterKind::kCounter);
}

TEST(HwCounterHelpTest, EveryCaptureAndDriverSetIsDescribed) {
  // rxe: the 15 names rdma statistic and sysfs show in the VM capture.
  for (const char* n :
       {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
        "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred",
        "retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err",
        "send_err", "link_downed", "rdma_sends", "rdma_recvs",
        // mlx5 (counters.c)
        "out_of_buffer", "out_of_sequence", "rnr_nak_retry_err",
        "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
        "resp_local_length_error", "resp_cqe_error", "req_cqe_error",
        "req_remote_invalid_request", "req_remote_access_errors",
        "resp_remote_access_errors", "resp_cqe_flush_error",
        "req_cqe_flush_error", "req_transport_retries_exceeded",
        "req_rnr_retries_exceeded", "np_cnp_sent", "np_ecn_marked_roce_packets",
        "rp_cnp_handled", "rp_cnp_ignored", "roce_adp_retrans",
        "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
        "roce_slow_restart_trans", "rx_write_requests", "rx_read_requests",
        "rx_atomic_requests", "rx_dct_connect", "rx_icrc_encapsulated",
        "cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts", "rdma_tx_bytes",
        "rdma_rx_bytes", "rdma_tx_packets", "rdma_rx_packets",
        // a few of irdma, bnxt_re, efa, hfi1
        "tcpRetransSegs", "cnpHandled", "RxECNMrkd", "to_retransmits",
        "oos_drop_count", "rx_pkts", "retrans_pkts",
        "impaired_remote_conn_events", "submitted_cmds", "RcvOverflow,32",
        "DRIVER_KernIntr", "TxWait", "vport_out_of_buffer"}) {
    EXPECT_TRUE(HwCounterKnown(n)) << n;
    const std::string help(HwCounterHelp(n));
    EXPECT_NE(help, kHwCounterGenericHelp) << n;
    // The kernel name is in the help text (HELP carries the source name).
    EXPECT_NE(help.find(n), std::string::npos) << n << ": " << help;
  }
}

TEST(HwCounterHelpTest, UnknownNameGetsGenericHelpNeverEmpty) {
  EXPECT_FALSE(HwCounterKnown("some_future_counter"));
  EXPECT_EQ(HwCounterHelp("some_future_counter"), kHwCounterGenericHelp);
  EXPECT_EQ(HwCounterFamilyName("some_future_counter"),
            "rnic_hw_some_future_counter_total");
  EXPECT_EQ(HwCounterWidthBits("some_future_counter"), 64);
}

TEST(HwCounterWidthTest, Mlx5QCountersAre32Bit) {
  for (const char* n : {"out_of_buffer", "local_ack_timeout_err",
                        "req_transport_retries_exceeded", "rx_write_requests",
                        "roce_adp_retrans", "vport_packet_seq_err"}) {
    EXPECT_EQ(HwCounterWidthBits(n), 32) << n;
  }
  for (const char* n : {"np_cnp_sent", "rp_cnp_handled", "rx_icrc_encapsulated",
                        "rdma_tx_bytes", "sent_pkts", "tx_bytes", "TxWait"}) {
    EXPECT_EQ(HwCounterWidthBits(n), 64) << n;
  }
}

}  // namespace
}  // namespace rnic
