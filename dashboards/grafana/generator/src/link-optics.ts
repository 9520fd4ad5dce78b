import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import { table, timeseries } from "./panels";
import { DSEL, target } from "./queries";

export function linkOptics(): Dashboard {
  // FEC, standard PHY/MAC statistics and optics (ethtool collector).
  const lay = new Layout();
  const netLegend = "{{instance}} {{netdev}}";
  lay.row("FEC");
  lay.add(8, 8, table(
    "FEC mode",
    "Active FEC mode per netdev (rnic_fec_active_mode_info): none, rs, " +
      "baser, llrs. It must match the far end.",
    [target(`rnic_fec_active_mode_info{${DSEL}}`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.add(8, 8, timeseries(
    "Corrected FEC blocks",
    "Blocks the FEC corrected, per second (rnic_fec_corrected_blocks_total). " +
      "Normal on PAM4 links; a rise over the link's own baseline means it " +
      "degrades (alert RnicFecCorrectedRateHigh).",
    [
      target(
        `rate(rnic_fec_corrected_blocks_total{${DSEL}}[$__rate_interval])`,
        netLegend,
      ),
    ],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Uncorrectable FEC blocks",
    "Blocks the FEC could not correct, per second: lost frames " +
      "(rnic_fec_uncorrectable_blocks_total).",
    [
      target(
        `rate(rnic_fec_uncorrectable_blocks_total{${DSEL}}[$__rate_interval])`,
        netLegend,
      ),
    ],
    "cps",
  ));
  lay.add(12, 8, timeseries(
    "Corrected FEC blocks per lane",
    "Per-lane corrected blocks where the driver counts them " +
      "(rnic_fec_lane_corrected_blocks_total): one lane rising points at one " +
      "fibre or module lane.",
    [
      target(
        `rate(rnic_fec_lane_corrected_blocks_total{${DSEL}}[$__rate_interval])`,
        "{{instance}} {{netdev}} lane {{lane}}",
      ),
    ],
    "cps",
  ));
  lay.add(12, 8, timeseries(
    "Symbol and FCS errors",
    "IEEE 802.3 SymbolErrorDuringCarrier and FrameCheckSequenceErrors from " +
      "the standard statistics groups, per second.",
    [
      target(
        `rate(rnic_ethtool_eth_phy_symbol_error_during_carrier_total{${DSEL}}[$__rate_interval])`,
        "{{instance}} {{netdev}} symbol",
      ),
      target(
        `rate(rnic_ethtool_eth_mac_frame_check_sequence_errors_total{${DSEL}}[$__rate_interval])`,
        "{{instance}} {{netdev}} fcs",
      ),
    ],
    "cps",
  ));
  lay.row("Frame sizes (rmon)");
  const frameSizeHelp = " per second by frame length in octets, stacked: one " +
    "band per bucket the driver defines " +
    "(rnic_ethtool_rmon_frame_size_packets_total, legend low-high, +Inf for " +
    "the open last bucket; pick one $device for one netdev's stack). RoCE " +
    "data frames land in the bucket of the RDMA path MTU (1024 or 4096 plus " +
    "headers). A shift to the small buckets (0-64, 65-127) at the same byte " +
    "rate means ACKs, CNPs or small messages dominate: more packets per " +
    "byte, so the NIC and the CPUs reach their packet rate before the link's " +
    "bandwidth. A shift to the buckets above 1518 means jumbo frames: frames " +
    "there on a netdev with MTU 1500 (a peer sending frames this side " +
    "drops), or none where MTU 9000 is configured (a hop limiting the path " +
    "MTU), point at an MTU mismatch. A driver without the histogram, or " +
    "without this direction's buckets (mlx5 counts RX only), shows no series.";
  for (const [direction, verb] of [["rx", "Received"], ["tx", "Transmitted"]]) {
    lay.add(12, 8, timeseries(
      `${verb} frame sizes`,
      verb + " frames" + frameSizeHelp,
      [
        target(
          `rate(rnic_ethtool_rmon_frame_size_packets_total{${DSEL},direction="${direction}"}[$__rate_interval])`,
          "{{instance}} {{netdev}} {{low}}-{{high}}",
        ),
      ],
      "pps",
      { stack: true },
    ));
  }
  lay.row("Optics");
  lay.add(24, 7, table(
    "Modules",
    "Pluggable modules (rnic_optic_info): type, management spec, vendor, " +
      "part number, revision, serial.",
    [target(`rnic_optic_info{${DSEL}}`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.add(12, 8, timeseries(
    "Module temperature",
    "rnic_optic_temperature_celsius, with each module's own high-warning " +
      "threshold (dashed in the legend as 'warn').",
    [
      target(`rnic_optic_temperature_celsius{${DSEL}}`, netLegend),
      target(
        `rnic_optic_temperature_threshold_celsius{${DSEL},level="high_warning"}`,
        "{{instance}} {{netdev}} warn",
      ),
    ],
    "celsius",
  ));
  lay.add(12, 8, timeseries(
    "Supply voltage",
    "rnic_optic_supply_voltage_volts (3.3 V nominal).",
    [target(`rnic_optic_supply_voltage_volts{${DSEL}}`, netLegend)],
    "volt",
  ));
  lay.add(12, 8, timeseries(
    "Receive power per lane",
    "rnic_optic_rx_power_watts per lane, with the module's low-warning " +
      "threshold (alert RnicOpticRxPowerLow).",
    [
      target(
        `rnic_optic_rx_power_watts{${DSEL}}`,
        "{{instance}} {{netdev}} lane {{lane}}",
      ),
      target(
        `rnic_optic_rx_power_threshold_watts{${DSEL},level="low_warning"}`,
        "{{instance}} {{netdev}} low warn",
      ),
    ],
    "watt",
  ));
  lay.add(12, 8, timeseries(
    "Transmit power per lane",
    "rnic_optic_tx_power_watts per lane.",
    [
      target(
        `rnic_optic_tx_power_watts{${DSEL}}`,
        "{{instance}} {{netdev}} lane {{lane}}",
      ),
    ],
    "watt",
  ));
  lay.add(12, 8, timeseries(
    "Laser bias per lane",
    "rnic_optic_tx_bias_amperes per lane: rising bias at constant power is " +
      "an ageing laser.",
    [
      target(
        `rnic_optic_tx_bias_amperes{${DSEL}}`,
        "{{instance}} {{netdev}} lane {{lane}}",
      ),
    ],
    "amp",
  ));
  lay.add(12, 8, table(
    "Raised module flags",
    "Alarm and warning flags the module latched since the previous read " +
      "(rnic_optic_alarm_flag == 1).",
    [target(`rnic_optic_alarm_flag{${DSEL}} == 1`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.row("PCIe");
  lay.add(24, 8, timeseries(
    "PCIe bandwidth of the RNIC's IIO stack",
    "Bytes per second through the Intel IIO stack (root complex) of each " +
      "RDMA device, from the uncore free-running counters " +
      "(rnic_pcie_iio_bytes_total; perf collector, no configuration). in: " +
      "device to host; out: host to device. Devices sharing a stack show it " +
      "once.",
    [
      target(
        `rate(rnic_pcie_iio_bytes_total{${DSEL}}[$__rate_interval])`,
        "{{instance}} {{device}} {{direction}}",
      ),
    ],
    "Bps",
  ));
  return rnicDashboard(
    "rnic-link-optics",
    "RNIC / Link FEC and optics",
    "Below the RDMA counters: FEC corrections, PHY/MAC errors and the " +
      "modules' temperature, voltage and optical power against their own " +
      "thresholds.",
    lay,
  );
}
