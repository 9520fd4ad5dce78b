import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { queryVariable, rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import { matrix, stateTimeline, timeseries } from "./panels";
import { SEL, target, valueMap } from "./queries";

export function fabric(): Dashboard {
  const lay = new Layout();
  const fsel = SEL + ',peer=~"$peer"';
  // One "source" label per row of the matrices.
  const source = (expr: string) =>
    `label_join(${expr}, "source", " ", "instance", "device", "remote_device")`;
  lay.row("Source x peer");
  lay.add(12, 10, matrix(
    "p99 RTT",
    "Fabric probe RTT p99 over 5m (worst operation) from each source " +
      "(instance, local device, peer device) to each peer host. Red: above 1 " +
      "ms.",
    source(
      "max without (operation) " +
        `(device_peer_operation:rnic_fabric_rtt_seconds:p99_rate5m{${fsel}})`,
    ),
    "s",
    [[0.0002, "orange"], [0.001, "red"]],
  ));
  lay.add(12, 10, matrix(
    "Loss",
    "Share of the probes sent on a connection that timed out or failed over " +
      "5m (device_peer:rnic_fabric_probe_loss:ratio_rate5m).",
    source(`device_peer:rnic_fabric_probe_loss:ratio_rate5m{${fsel}}`),
    "percentunit",
    [[0.001, "orange"], [0.01, "red"]],
  ));
  lay.row("Pairs");
  lay.add(24, 8, stateTimeline(
    "Peer up",
    "rnic_fabric_peer_up: 1 when the pair is connected and its last round " +
      "completed every operation.",
    [
      target(
        `rnic_fabric_peer_up{${fsel}}`,
        "{{instance}} {{device}} > {{peer}} {{remote_device}}",
      ),
    ],
    valueMap([
      ["0", "down", "red"],
      ["1", "up", "green"],
    ]),
  ));
  lay.add(12, 9, timeseries(
    "p50 RTT",
    "Median round trip per pair and operation; dashed in the alert: the " +
      "one-day median of the p99.",
    [
      target(
        `device_peer_operation:rnic_fabric_rtt_seconds:p50_rate5m{${fsel}}`,
        "{{instance}} {{device}} > {{peer}} {{remote_device}} {{operation}}",
      ),
    ],
    "s",
  ));
  lay.add(12, 9, timeseries(
    "p99 RTT and baseline",
    "p99 per pair and operation, and its one-day median that " +
      "RnicFabricRttHigh compares against.",
    [
      target(
        `device_peer_operation:rnic_fabric_rtt_seconds:p99_rate5m{${fsel}}`,
        "{{instance}} {{device}} > {{peer}} {{remote_device}} {{operation}}",
      ),
      target(
        `device_peer_operation:rnic_fabric_rtt_seconds:p99_rate5m_median1d{${fsel}}`,
        "1d {{instance}} {{device}} > {{peer}} {{remote_device}} {{operation}}",
      ),
    ],
    "s",
  ));
  lay.add(12, 8, timeseries(
    "Failed probes",
    "Probes by failing result: timeout, completion_error, not_connected.",
    [
      target(
        `sum by (instance, device, peer, remote_device, result) ` +
          `(rate(rnic_fabric_probes_total{${fsel},result!="ok"}[$__rate_interval]))`,
        "{{instance}} {{device}} > {{peer}} {{remote_device}} {{result}}",
      ),
    ],
    "ops",
  ));
  lay.add(12, 8, timeseries(
    "Connect failures and reconnects",
    "Failed connection attempts by rdma_cm event, and reconnects.",
    [
      target(
        `sum by (instance, device, peer, event) ` +
          `(rate(rnic_fabric_connect_failures_total{${fsel}}[$__rate_interval]))`,
        "{{instance}} {{device}} > {{peer}} {{event}}",
      ),
      target(
        `sum by (instance, device, peer) ` +
          `(rate(rnic_fabric_reconnects_total{${fsel}}[$__rate_interval]))`,
        "reconnect {{instance}} {{device}} > {{peer}}",
      ),
    ],
    "ops",
  ));
  lay.row("Responder and cost");
  lay.add(12, 8, timeseries(
    "Responder",
    "Connections the responder holds, and refusals by reason.",
    [
      target(
        `rnic_fabric_responder_connections{${SEL}}`,
        "connections {{instance}} {{device}}",
      ),
      target(
        `sum by (instance, device, reason) ` +
          `(rate(rnic_fabric_responder_refused_total{${SEL}}[$__rate_interval]))`,
        "refused {{instance}} {{device}} {{reason}}",
      ),
    ],
    "short",
  ));
  lay.add(12, 8, timeseries(
    "Probe CPU",
    "CPU share used by the fabric probe threads, and time rounds were held " +
      "back by the CPU budget.",
    [
      target(
        `rate(rnic_fabric_cpu_seconds_total{${SEL}}[$__rate_interval])`,
        "cpu {{instance}}",
      ),
      target(
        `rate(rnic_fabric_budget_delay_seconds_total{${SEL}}[$__rate_interval])`,
        "held back {{instance}}",
      ),
    ],
    "percentunit",
  ));
  return rnicDashboard(
    "rnic-fabric",
    "RNIC / Fabric",
    "Fabric probe (collector fabric): RC round-trip time and loss between " +
      "hosts, as a source x peer matrix and per pair.",
    lay,
    [
      queryVariable(
        "peer",
        `label_values(rnic_fabric_peer_up{${SEL}}, peer)`,
      ),
    ],
  );
}
