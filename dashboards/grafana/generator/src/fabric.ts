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
  // The fleet: group pairs (the Pingmesh picture) from the fleet recording
  // rules, each cell a link to the same dashboard narrowed to that pair;
  // below them the hosts of the selected groups.
  const gsel = SEL + ',src_group=~"$src_group",dst_group=~"$dst_group"';
  const drill = {
    title: "Hosts of this group pair",
    url:
      "/d/rnic-fabric/rnic-fabric?${__url_time_range}&${job:queryparam}" +
      "&${instance:queryparam}" +
      '&var-src_group=${__data.fields["src_group\\dst_group"]}' +
      "&var-dst_group=${__field.name}",
  };
  lay.row("Fleet: group pairs");
  lay.add(12, 10, matrix(
    "Failed probes per group pair",
    "Share of the probes from the hosts of a source group (row) into a " +
      "destination group (column) that failed over 1m, averaged over the " +
      "source hosts (instance_dst_group:rnic_fabric_probes_failed:" +
      "ratio_rate1m): a bad host shows as a faint column, a bad ToR as a " +
      "full row and column, a bad path as one cell. A cell opens its hosts.",
    "avg by (src_group, dst_group) " +
      `(instance_dst_group:rnic_fabric_probes_failed:ratio_rate1m{${gsel}})`,
    "percentunit",
    [[0.01, "orange"], [0.15, "red"]],
    { row: "src_group", column: "dst_group", link: drill },
  ));
  lay.add(12, 10, matrix(
    "Mean RTT per group pair",
    "Mean round trip of the ok probes from a source group into a " +
      "destination group over 1m (partial mesh: every probe counts per " +
      "group), averaged over the source hosts. A cell opens its hosts.",
    "avg by (src_group, dst_group) " +
      `(instance_dst_group:rnic_fabric_rtt_seconds:mean_rate1m{${gsel}})`,
    "s",
    [[0.0002, "orange"], [0.001, "red"]],
    { row: "src_group", column: "dst_group", link: drill },
  ));
  lay.add(12, 10, matrix(
    "Hosts of the selected groups",
    "Per source host of $src_group: the share of its probes into each " +
      "selected destination group that failed over 1m.",
    `instance_dst_group:rnic_fabric_probes_failed:ratio_rate1m{${gsel}}`,
    "percentunit",
    [[0.01, "orange"], [0.15, "red"]],
    { row: "src_host", column: "dst_group" },
  ));
  lay.add(12, 10, matrix(
    "Peers of the selected groups, per pair",
    "Per source instance and peer of $dst_group with per-pair series (every " +
      "peer of a full mesh; fabric.mesh.detail_peers of a partial one): the " +
      "share of probes that failed over 1m, devices summed.",
    "instance_peer:rnic_fabric_probes_failed:ratio_rate1m" +
      `{${SEL},dst_group=~"$dst_group"}`,
    "percentunit",
    [[0.01, "orange"], [0.15, "red"]],
    { row: "instance", column: "peer" },
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
      "hosts, as group pairs of the fleet, a source x peer matrix and per " +
      "pair.",
    lay,
    [
      queryVariable(
        "peer",
        `label_values(rnic_fabric_peer_up{${SEL}}, peer)`,
      ),
      queryVariable(
        "src_group",
        `label_values(rnic_fabric_mesh_info{${SEL}}, group)`,
      ),
      queryVariable(
        "dst_group",
        "label_values(instance_dst_group:rnic_fabric_probes_failed:ratio_rate1m" +
          `{${SEL}}, dst_group)`,
      ),
    ],
  );
}
