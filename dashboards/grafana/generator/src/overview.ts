import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import {
  columnOverride,
  stat,
  stateTimeline,
  table,
  timeseries,
} from "./panels";
import {
  DSEL,
  SEL,
  PORT_LEGEND,
  PORT_STATE_MAPPINGS,
  PHYS_STATE_MAPPINGS,
  target,
  valueMap,
} from "./queries";

export function overview(): Dashboard {
  const lay = new Layout();
  lay.row("Fleet");
  lay.add(4, 4, stat(
    "Exporters",
    "rnic_exporter instances reporting.",
    [
      target(
        `count(count by (job, instance) ` +
          `(rnic_scrape_collector_success{${SEL}}))`,
        "",
        { instant: true },
      ),
    ],
    "none",
  ));
  lay.add(4, 4, stat(
    "Ports ACTIVE",
    "Ports in state ACTIVE or ACTIVE_DEFER.",
    [
      target(
        `count(rnic_port_state{${DSEL}} >= 4) or vector(0)`,
        "",
        { instant: true },
      ),
    ],
    "none",
  ));
  lay.add(4, 4, stat(
    "Ports not ACTIVE",
    "Ports in state DOWN, INIT or ARMED (includes unused ports).",
    [
      target(
        `count(rnic_port_state{${DSEL}} < 4) or vector(0)`,
        "",
        { instant: true },
      ),
    ],
    "none",
    { thresholds: [[1, "orange"]] },
  ));
  lay.add(4, 4, stat(
    "Ports below usual rate",
    "Ports whose negotiated rate is under their highest rate of the last day " +
      "(alert RnicPortRateDegraded).",
    [
      target(
        `count(rnic_port_rate_bytes_per_second{${DSEL}} < ` +
          `max_over_time(rnic_port_rate_bytes_per_second{${DSEL}}[1d])) or ` +
          `vector(0)`,
        "",
        { instant: true },
      ),
    ],
    "none",
    { thresholds: [[1, "orange"]] },
  ));
  lay.add(4, 4, stat(
    "Saturated counters",
    "PMA error counters stuck at their maximum: they no longer count new " +
      "errors.",
    [
      target(
        `count(rnic_port_pma_saturated{${DSEL}} > 0) or vector(0)`,
        "",
        { instant: true },
      ),
    ],
    "none",
    { thresholds: [[1, "orange"]] },
  ));
  lay.add(4, 4, stat(
    "Collectors failing",
    "Collectors whose last scrape failed (rnic_scrape_collector_success == 0).",
    [
      target(
        `count(rnic_scrape_collector_success{${SEL}} == 0) or vector(0)`,
        "",
        { instant: true },
      ),
    ],
    "none",
    { thresholds: [[1, "red"]] },
  ));
  lay.row("Ports");
  lay.add(24, 8, table(
    "Ports",
    "Every port with its link layer, netdev, state, physical state and " +
      "negotiated rate.",
    [
      target(`rnic_port_info{${DSEL}}`),
      target(`rnic_port_state{${DSEL}}`),
      target(`rnic_port_physical_state{${DSEL}}`),
      target(`rnic_port_rate_bytes_per_second{${DSEL}}`),
    ],
    "none",
    {
      overrides: [
        columnOverride("Value #A", "none", { display: "info" }),
        columnOverride(
          "Value #B",
          "none",
          { mappings: PORT_STATE_MAPPINGS, display: "State" },
        ),
        columnOverride(
          "Value #C",
          "none",
          { mappings: PHYS_STATE_MAPPINGS, display: "Physical state" },
        ),
        columnOverride("Value #D", "Bps", { display: "Rate" }),
      ],
      exclude: ["job", "Value #A"],
    },
  ));
  lay.add(24, 6, table(
    "Devices",
    "Device metadata from rnic_device_info (firmware, board, driver).",
    [target(`rnic_device_info{${DSEL}}`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.add(12, 8, stateTimeline(
    "Port state",
    "Logical port state over time (kernel enum: 1 DOWN, 2 INIT, 3 ARMED, 4 " +
      "ACTIVE, 5 ACTIVE_DEFER).",
    [target(`rnic_port_state{${DSEL}}`, PORT_LEGEND)],
    PORT_STATE_MAPPINGS,
  ));
  lay.add(12, 8, timeseries(
    "Negotiated link rate",
    "rnic_port_rate_bytes_per_second: a drop means the link retrained at a " +
      "lower speed or width.",
    [target(`rnic_port_rate_bytes_per_second{${DSEL}}`, PORT_LEGEND)],
    "Bps",
  ));
  lay.row("Traffic (vendor-neutral recording rules)");
  lay.add(12, 8, timeseries(
    "Transmitted",
    "device_port:rnic_transmitted_bytes:rate5m: PMA port_xmit_data or the " +
      "driver's byte counter (rxe has none).",
    [target(`device_port:rnic_transmitted_bytes:rate5m{${DSEL}}`, PORT_LEGEND)],
    "Bps",
  ));
  lay.add(12, 8, timeseries(
    "Received",
    "device_port:rnic_received_bytes:rate5m.",
    [target(`device_port:rnic_received_bytes:rate5m{${DSEL}}`, PORT_LEGEND)],
    "Bps",
  ));
  lay.add(12, 8, timeseries(
    "Link utilisation",
    "Throughput as a share of the negotiated rate, transmit and receive.",
    [
      target(
        `device_port:rnic_transmit_utilisation:ratio_rate5m{${DSEL}}`,
        "tx " + PORT_LEGEND,
      ),
      target(
        `device_port:rnic_receive_utilisation:ratio_rate5m{${DSEL}}`,
        "rx " + PORT_LEGEND,
      ),
    ],
    "percentunit",
  ));
  lay.add(12, 8, timeseries(
    "Packets",
    "Packets per second, transmit and receive (PMA or driver counters).",
    [
      target(
        `device_port:rnic_transmitted_packets:rate5m{${DSEL}}`,
        "tx " + PORT_LEGEND,
      ),
      target(
        `device_port:rnic_received_packets:rate5m{${DSEL}}`,
        "rx " + PORT_LEGEND,
      ),
    ],
    "pps",
  ));
  lay.row("Link errors (PMA)");
  lay.add(8, 8, timeseries(
    "Symbol errors",
    "Physical-layer symbol errors per second (dirty or failing " +
      "cable/transceiver).",
    [
      target(
        `rate(rnic_port_symbol_errors_total{${DSEL}}[$__rate_interval])`,
        PORT_LEGEND,
      ),
    ],
    "cps",
  ));
  lay.add(8, 8, timeseries(
    "Link downed",
    "Times the link went down, per interval.",
    [
      target(
        `increase(rnic_port_link_downed_total{${DSEL}}[$__rate_interval])`,
        PORT_LEGEND,
      ),
    ],
    "short",
    { draw: "bars" },
  ));
  lay.add(8, 8, table(
    "Saturated counters",
    "PMA counters that reached their maximum. Their rates read zero from " +
      "then on, whatever happens on the link.",
    [target(`rnic_port_pma_saturated{${DSEL}} > 0`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.add(24, 6, table(
    "Host placement",
    "NUMA node of each RDMA device, its interrupt vectors, and how many may " +
      "run on CPUs of another node (alert RnicIrqsOffNumaNode).",
    [
      target(`rnic_numa_node{${DSEL}}`),
      target(`rnic_irqs{${DSEL}}`),
      target(`rnic_irqs_off_numa_node{${DSEL}}`),
    ],
    "none",
    {
      overrides: [
        columnOverride("Value #A", "none", { display: "NUMA node" }),
        columnOverride("Value #B", "none", { display: "IRQs" }),
        columnOverride("Value #C", "none", { display: "IRQs off node" }),
      ],
      exclude: ["job"],
    },
  ));
  lay.row("PMU events (perf collector, opt-in)");
  lay.add(18, 8, timeseries(
    "PMU event rates",
    "Rates of the perf events configured in the perf: section of " +
      "--config.file, summed over CPUs (e.g. uncore_iio bytes of the NIC's " +
      "PCIe root port, which count 4-byte units).",
    [
      target(
        `sum by (instance, pmu, event) ` +
          `(rate(rnic_perf_events_total{${SEL}}[$__rate_interval]))`,
        "{{instance}} {{pmu}} {{event}}",
      ),
    ],
    "cps",
  ));
  lay.add(6, 8, table(
    "Unavailable PMU events",
    "Configured events the kernel refused to open (the exporter logs the " +
      "reason once).",
    [target(`rnic_perf_event_unavailable{${SEL}} > 0`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.row("Exporter");
  lay.add(12, 7, timeseries(
    "Collector duration",
    "rnic_scrape_collector_duration_seconds per collector.",
    [
      target(
        `rnic_scrape_collector_duration_seconds{${SEL}}`,
        "{{instance}} {{collector}}",
      ),
    ],
    "s",
  ));
  lay.add(12, 7, stateTimeline(
    "Collector success",
    "rnic_scrape_collector_success per collector (1 ok, 0 failed).",
    [
      target(
        `rnic_scrape_collector_success{${SEL}}`,
        "{{instance}} {{collector}}",
      ),
    ],
    valueMap([
      ["0", "failed", "red"],
      ["1", "ok", "green"],
    ]),
  ));
  return rnicDashboard(
    "rnic-overview",
    "RNIC / Overview",
    "Hosts, RDMA devices and ports: state, rate, traffic, link errors and " +
      "the exporter's own health.",
    lay,
  );
}
