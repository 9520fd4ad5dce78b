import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import { columnOverride, table, timeseries } from "./panels";
import { DSEL, PORT_LEGEND, target } from "./queries";

export function congestion(): Dashboard {
  const lay = new Layout();
  lay.row("Congestion (ECN / DCQCN)");
  lay.add(12, 8, timeseries(
    "ECN-marked packets received",
    "RoCEv2 packets that arrived with ECN CE set: the path to this port is " +
      "congested (np_ecn_marked_roce_packets, rx_ecn_marked_pkts, " +
      "RxECNMrkd). Per priority: packets this NIC itself marked because of " +
      "host-side congestion (ethtool rx_prio*_marked, roce collector).",
    [
      target(`device_port:rnic_ecn_marked_packets:rate5m{${DSEL}}`, PORT_LEGEND),
      target(
        `sum by (instance, device, port, priority) ` +
          `(rate(rnic_rx_priority_ecn_marked_packets_total{${DSEL}}[$__rate_interval]))`,
        "marked by this NIC " + PORT_LEGEND + " prio {{priority}}",
      ),
    ],
    "pps",
  ));
  lay.add(12, 8, timeseries(
    "ECN-marked share",
    "ECN-marked packets as a share of received packets (alert " +
      "RnicCongestionHigh above 5 %).",
    [
      target(
        `device_port:rnic_ecn_marked_per_received_packet:ratio_rate5m{${DSEL}}`,
        PORT_LEGEND,
      ),
    ],
    "percentunit",
  ));
  lay.add(8, 8, timeseries(
    "CNPs sent",
    "Congestion notification packets this port sent to senders after seeing " +
      "ECN marks (notification point).",
    [target(`device_port:rnic_cnp_sent:rate5m{${DSEL}}`, PORT_LEGEND)],
    "pps",
  ));
  lay.add(8, 8, timeseries(
    "CNPs handled",
    "CNPs this port received and acted on by slowing down (reaction point). " +
      "Dashed: one-day mean, the RnicCnpSurge baseline.",
    [
      target(`device_port:rnic_cnp_handled:rate5m{${DSEL}}`, PORT_LEGEND),
      target(
        `device_port:rnic_cnp_handled:rate5m_avg1d{${DSEL}}`,
        "1d mean " + PORT_LEGEND,
      ),
    ],
    "pps",
  ));
  lay.add(8, 8, timeseries(
    "CNPs ignored",
    "CNPs received but not acted on: congestion control is off or " +
      "misconfigured for that traffic class (alert RnicCnpIgnored).",
    [target(`device_port:rnic_cnp_ignored:rate5m{${DSEL}}`, PORT_LEGEND)],
    "pps",
  ));
  lay.row("Retransmits and timeouts (vendor-neutral)");
  lay.add(8, 8, timeseries(
    "Retransmit triggers",
    "ACK timeouts, NAK sequence errors and implied NAKs (rxe: completer " +
      "retries; efa: retransmitted packets).",
    [target(`device_port:rnic_retransmits:rate5m{${DSEL}}`, PORT_LEGEND)],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Retransmit triggers by counter",
    "The kernel counters behind the retransmit series.",
    [
      target(
        `device_port_counter:rnic_retransmits:rate5m{${DSEL}} > 0`,
        PORT_LEGEND + " {{counter}}",
      ),
    ],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Retransmit share",
    "Retransmit triggers per transmitted packet (alert RnicRetransmitsHigh " +
      "above 0.1 %).",
    [
      target(
        `device_port:rnic_retransmits_per_transmitted_packet:ratio_rate5m{${DSEL}}`,
        PORT_LEGEND,
      ),
    ],
    "percentunit",
  ));
  lay.add(8, 8, timeseries(
    "Local ACK timeouts",
    "Requester ACK timer expiries (local_ack_timeout_err, to_retransmits, " +
      "retrans_timeout_events).",
    [target(`device_port:rnic_ack_timeouts:rate5m{${DSEL}}`, PORT_LEGEND)],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Retries exceeded",
    "Queue pairs that exhausted their transport or RNR retries and went to " +
      "the error state, by counter.",
    [
      target(
        `device_port_counter:rnic_retries_exceeded:rate5m{${DSEL}} > 0`,
        PORT_LEGEND + " {{counter}}",
      ),
    ],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Receive-buffer drops",
    "Packets dropped because no receive WQE was posted (out_of_buffer, " +
      "rx_out_of_buffer, rx_drops).",
    [target(`device_port:rnic_rx_buffer_drops:rate5m{${DSEL}}`, PORT_LEGEND)],
    "pps",
  ));
  lay.row("PFC, adapter discards and PCIe (roce collector)");
  lay.add(8, 8, timeseries(
    "PFC pause frames",
    "Pause frames per priority: rx = the switch paused this port, tx = this " +
      "NIC paused the switch. Only PFC-enabled priorities are listed.",
    [
      target(
        `sum by (instance, netdev, priority, direction) ` +
          `(rate(rnic_pfc_pause_frames_total{${DSEL}}[$__rate_interval]))`,
        "{{instance}} {{netdev}} prio {{priority}} {{direction}}",
      ),
    ],
    "pps",
  ));
  lay.add(8, 8, timeseries(
    "Time paused",
    "Share of time paused by PFC per priority (rate of pause seconds). rx " +
      "above 25 % for 15m: alert RnicPfcPausedHigh.",
    [
      target(
        `rate(rnic_pfc_pause_duration_seconds_total{${DSEL}}[$__rate_interval])`,
        "{{instance}} {{netdev}} prio {{priority}} {{direction}}",
      ),
    ],
    "percentunit",
  ));
  lay.add(8, 8, timeseries(
    "Pause storms",
    "Pause-storm warning and error events (error: the NIC stopped sending " +
      "pause; alert RnicPfcPauseStorm).",
    [
      target(
        `increase(rnic_pfc_pause_storm_warning_events_total{${DSEL}}[$__rate_interval]) ` +
          `> 0`,
        "warning {{instance}} {{netdev}}",
      ),
      target(
        `increase(rnic_pfc_pause_storm_error_events_total{${DSEL}}[$__rate_interval]) ` +
          `> 0`,
        "error {{instance}} {{netdev}}",
      ),
    ],
    "short",
    { draw: "bars" },
  ));
  lay.add(12, 8, timeseries(
    "Adapter discards",
    "Packets the NIC dropped: at the physical port for lack of buffers " +
      "(rx/tx_discards_phy), per priority (rx_prio*_discards), and for lack " +
      "of a posted netdev receive buffer (rx_out_of_buffer).",
    [
      target(
        `rate(rnic_phy_rx_discards_total{${DSEL}}[$__rate_interval])`,
        "phy rx {{instance}} {{netdev}}",
      ),
      target(
        `rate(rnic_phy_tx_discards_total{${DSEL}}[$__rate_interval])`,
        "phy tx {{instance}} {{netdev}}",
      ),
      target(
        `sum by (instance, netdev, priority) ` +
          `(rate(rnic_rx_priority_discards_total{${DSEL}}[$__rate_interval]))`,
        "prio {{priority}} {{instance}} {{netdev}}",
      ),
      target(
        `rate(rnic_rx_out_of_buffer_total{${DSEL}}[$__rate_interval])`,
        "out of buffer {{instance}} {{netdev}}",
      ),
    ],
    "pps",
  ));
  lay.add(12, 8, timeseries(
    "PCIe back-pressure",
    "Share of each second outbound PCIe reads/writes were stalled for lack " +
      "of credits, and PCIe buffer overflow drops (alert " +
      "RnicPcieBackpressure).",
    [
      target(
        `rnic_pcie_outbound_stalled_reads_ratio{${DSEL}}`,
        "reads stalled {{instance}} {{netdev}}",
      ),
      target(
        `rnic_pcie_outbound_stalled_writes_ratio{${DSEL}}`,
        "writes stalled {{instance}} {{netdev}}",
      ),
      target(
        `rate(rnic_pcie_outbound_buffer_overflow_packets_total{${DSEL}}[$__rate_interval])`,
        "overflow pkts/s {{instance}} {{netdev}}",
      ),
    ],
    "percentunit",
  ));
  lay.add(12, 8, table(
    "PFC and ECN configuration",
    "Per priority: PFC enabled (dcbnl) and RoCE ECN enabled per role (np " +
      "sends CNPs, rp reacts). A PFC priority needs both roles on (alert " +
      "RnicEcnDisabledOnPfcPriority).",
    [
      target(`rnic_pfc_enabled{${DSEL}}`),
      target(
        `sum by (instance, device, port, netdev, priority) ` +
          `(rnic_roce_ecn_enabled{${DSEL},role="np"})`,
      ),
      target(
        `sum by (instance, device, port, netdev, priority) ` +
          `(rnic_roce_ecn_enabled{${DSEL},role="rp"})`,
      ),
    ],
    "none",
    {
      overrides: [
        columnOverride("Value #A", "none", { display: "PFC" }),
        columnOverride("Value #B", "none", { display: "ECN np" }),
        columnOverride("Value #C", "none", { display: "ECN rp" }),
      ],
      exclude: ["job"],
    },
  ));
  lay.add(12, 8, table(
    "RoCE netdev settings",
    "MTU of the netdev, whether it allows a 4096-byte RoCE MTU, DCBX willing " +
      "bit, and DSCP entries in the DCB APP table (mlx5: > 0 means trust " +
      "dscp).",
    [
      target(`rnic_netdev_mtu_bytes{${DSEL}}`),
      target(`rnic_roce_mtu_4096_capable{${DSEL}}`),
      target(`rnic_dcb_willing{${DSEL}}`),
      target(`rnic_dcb_app_dscp_mappings{${DSEL}}`),
    ],
    "none",
    {
      overrides: [
        columnOverride("Value #A", "bytes", { display: "MTU" }),
        columnOverride("Value #B", "none", { display: "4096 RoCE MTU" }),
        columnOverride("Value #C", "none", { display: "DCBX willing" }),
        columnOverride("Value #D", "none", { display: "DSCP mappings" }),
      ],
      exclude: ["job"],
    },
  ));
  lay.row("Driver counters (raw)");
  lay.add(8, 8, timeseries(
    "mlx5 adaptive retransmission",
    "roce_adp_retrans and roce_adp_retrans_to: retransmissions and timeouts " +
      "of the adaptive retransmission timer. Not in the vendor-neutral sum " +
      "(they overlap with local_ack_timeout_err).",
    [
      target(
        `rate(rnic_hw_roce_adp_retrans_total{${DSEL}}[$__rate_interval])`,
        "retrans " + PORT_LEGEND,
      ),
      target(
        `rate(rnic_hw_roce_adp_retrans_to_total{${DSEL}}[$__rate_interval])`,
        "timeout " + PORT_LEGEND,
      ),
    ],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "mlx5 slow restart and ICRC errors",
    "roce_slow_restart (rate limited after a timeout) and " +
      "rx_icrc_encapsulated (RoCE packets with a bad ICRC).",
    [
      target(
        `rate(rnic_hw_roce_slow_restart_total{${DSEL}}[$__rate_interval])`,
        "slow restart " + PORT_LEGEND,
      ),
      target(
        `rate(rnic_hw_rx_icrc_encapsulated_total{${DSEL}}[$__rate_interval])`,
        "icrc " + PORT_LEGEND,
      ),
    ],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Responder sequence errors",
    "Requests the responder saw out of sequence (a packet before them was " +
      "lost) or twice (a retransmit of something it had): mlx5 " +
      "out_of_sequence, rxe out_of_seq_request, duplicate_request.",
    [
      target(
        `rate(rnic_hw_out_of_sequence_total{${DSEL}}[$__rate_interval])`,
        "out_of_sequence " + PORT_LEGEND,
      ),
      target(
        `rate(rnic_hw_out_of_seq_request_total{${DSEL}}[$__rate_interval])`,
        "out_of_seq_request " + PORT_LEGEND,
      ),
      target(
        `rate(rnic_hw_duplicate_request_total{${DSEL}}[$__rate_interval])`,
        "duplicate_request " + PORT_LEGEND,
      ),
    ],
    "cps",
  ));
  lay.add(12, 8, timeseries(
    "Transmit wait (PMA)",
    "port_xmit_wait: ticks the port had data to send but no credits / was " +
      "paused. Rising with flat traffic means back-pressure.",
    [
      target(
        `rate(rnic_port_transmit_wait_total{${DSEL}}[$__rate_interval])`,
        PORT_LEGEND,
      ),
    ],
    "cps",
  ));
  lay.add(24, 6, table(
    "Optional counters",
    "Optional hardware counters the driver offers (netlink STAT_GET_STATUS) " +
      "and whether they are enabled. The exporter never enables them: `rdma " +
      "statistic set link <dev>/<port> optional-counters ...`.",
    [target(`rnic_optional_counter_info{${DSEL}}`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.add(12, 8, timeseries(
    "RNR NAKs",
    "Receiver-not-ready NAKs received (mlx5 rnr_nak_retry_err; rxe " +
      "rcvd_rnr_err): the peer had no receive WQE posted.",
    [
      target(
        `rate(rnic_hw_rnr_nak_retry_err_total{${DSEL}}[$__rate_interval])`,
        "rnr_nak_retry_err " + PORT_LEGEND,
      ),
      target(
        `rate(rnic_hw_rcvd_rnr_err_total{${DSEL}}[$__rate_interval])`,
        "rcvd_rnr_err " + PORT_LEGEND,
      ),
    ],
    "cps",
  ));
  return rnicDashboard(
    "rnic-congestion",
    "RNIC / Congestion and transport errors",
    "ECN marks, CNPs, retransmits, timeouts, retry exhaustion and " +
      "receive-buffer drops per port, across drivers; PFC, adapter discards, " +
      "PCIe back-pressure and the PFC/ECN configuration of RoCE netdevs.",
    lay,
  );
}
