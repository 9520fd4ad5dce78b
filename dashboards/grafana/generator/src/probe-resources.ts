import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { queryVariable, rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import {
  columnOverride,
  heatmap,
  stateTimeline,
  table,
  timeseries,
} from "./panels";
import { DSEL, SEL, PORT_LEGEND, target, valueMap } from "./queries";

export function probeResources(): Dashboard {
  const lay = new Layout();
  const psel = DSEL + ',operation=~"$operation"';
  lay.row("Active probe");
  lay.add(24, 6, stateTimeline(
    "Probe success",
    "rnic_probe_success per port: 1 when the last probe round completed.",
    [target(`rnic_probe_success{${DSEL}}`, PORT_LEGEND)],
    valueMap([
      ["0", "failing", "red"],
      ["1", "ok", "green"],
    ]),
  ));
  lay.add(12, 9, timeseries(
    "Median latency",
    "p50 of the probe's one-way latency per operation and size " +
      "(histogram_quantile over 5m). Dashed: the one-day median used by " +
      "RnicProbeLatencyHigh.",
    [
      target(
        `device_port_operation:rnic_probe_latency_seconds:p50_rate5m{${psel}}`,
        PORT_LEGEND + " {{operation}} {{size_bytes}}B",
      ),
      target(
        `device_port_operation:rnic_probe_latency_seconds:p50_rate5m_median1d{${psel}}`,
        "1d median " + PORT_LEGEND + " {{operation}} {{size_bytes}}B",
      ),
    ],
    "s",
  ));
  lay.add(12, 9, timeseries(
    "p99 latency",
    "p99 of the probe latency (histogram_quantile over 5m).",
    [
      target(
        `device_port_operation:rnic_probe_latency_seconds:p99_rate5m{${psel}}`,
        PORT_LEGEND + " {{operation}} {{size_bytes}}B",
      ),
    ],
    "s",
  ));
  lay.add(12, 9, heatmap(
    "Latency distribution",
    "All selected probe latencies per bucket.",
    [
      target(
        `sum by (le) ` +
          `(rate(rnic_probe_latency_seconds_bucket{${psel}}[$__rate_interval]))`,
      ),
    ],
    "s",
  ));
  lay.add(12, 9, timeseries(
    "Failed probe rounds",
    "Probe rounds per port that did not complete every operation.",
    [
      target(
        `increase(rnic_probe_rounds_total{${DSEL},result="failed"}[$__rate_interval]) ` +
          `> 0`,
        PORT_LEGEND,
      ),
    ],
    "short",
    { draw: "bars" },
  ));
  lay.add(12, 9, timeseries(
    "Probe errors",
    "Completion errors by status and timeouts of the probe.",
    [
      target(
        `sum by (instance, device, port, status) ` +
          `(rate(rnic_probe_completion_errors_total{${DSEL}}[$__rate_interval]))`,
        PORT_LEGEND + " {{status}}",
      ),
      target(
        `sum by (instance, device, port) ` +
          `(rate(rnic_probe_timeouts_total{${DSEL}}[$__rate_interval]))`,
        PORT_LEGEND + " timeout",
      ),
    ],
    "cps",
  ));
  lay.add(12, 8, timeseries(
    "Memory registration time",
    "p50 and p99 of ibv_reg_mr() time measured by the probe, per device and " +
      "buffer size.",
    [
      target(
        `histogram_quantile(0.5, sum by (le, instance, device, size_bytes) ` +
          `(rate(rnic_probe_mr_registration_seconds_bucket{${DSEL}}[$__rate_interval])))`,
        "p50 {{instance}} {{device}} {{size_bytes}}B",
      ),
      target(
        `histogram_quantile(0.99, sum by (le, instance, device, size_bytes) ` +
          `(rate(rnic_probe_mr_registration_seconds_bucket{${DSEL}}[$__rate_interval])))`,
        "p99 {{instance}} {{device}} {{size_bytes}}B",
      ),
    ],
    "s",
  ));
  lay.add(12, 8, timeseries(
    "Async events",
    "Asynchronous events the probe's verbs context received, by event " +
      "(cq_err is a CQ overrun of the probe's own CQ).",
    [
      target(
        `sum by (instance, device, port, event) ` +
          `(increase(rnic_async_events_total{${DSEL}}[$__rate_interval])) > 0`,
        PORT_LEGEND + " {{event}}",
      ),
    ],
    "short",
    { draw: "bars" },
  ));
  lay.add(24, 7, timeseries(
    "Probe CPU and budget",
    "Share of one core the probe threads use, against their budget " +
      "(probe.cpu_budget_percent), and the share of time rounds were held " +
      "back to stay within it. Held back a lot: the device or host makes " +
      "probing dear, and latency samples come less often than probe.interval.",
    [
      target(
        `rate(rnic_probe_cpu_seconds_total{${SEL}}[$__rate_interval])`,
        "{{instance}} used",
      ),
      target(`rnic_probe_cpu_budget_ratio{${SEL}} > 0`, "{{instance}} budget"),
      target(
        `rate(rnic_probe_budget_delay_seconds_total{${SEL}}[$__rate_interval])`,
        "{{instance}} held back",
      ),
    ],
    "percentunit",
  ));
  lay.row("Completion queues");
  lay.add(12, 8, timeseries(
    "CQ overruns",
    "CQ overruns per device: kernel log (all CQs on the host, mlx5) or the " +
      "probe's async events (own CQs only) as a fallback.",
    [
      target(
        `device:rnic_cq_overruns:rate5m{${DSEL}}`,
        "{{instance}} {{device}}",
      ),
    ],
    "cps",
  ));
  lay.add(12, 8, timeseries(
    "Kernel CQ errors by syndrome",
    "CQ error lines the driver logged (0x1 overrun, 0x2 access violation).",
    [
      target(
        `sum by (instance, device, syndrome, reason) ` +
          `(increase(rnic_kernel_cq_errors_total{${DSEL}}[$__rate_interval])) ` +
          `> 0`,
        "{{instance}} {{device}} {{syndrome}} {{reason}}",
      ),
    ],
    "short",
    { draw: "bars" },
  ));
  lay.row("Resources (RDMA netlink)");
  lay.add(12, 8, timeseries(
    "Objects per device",
    "RDMA objects per device and kind (rdma resource show): qp, cq, mr, pd, " +
      "ctx, srq, cm_id. Counts only objects visible in the exporter's PID " +
      "namespace.",
    [
      target(
        `rnic_resource_objects{${DSEL}}`,
        "{{instance}} {{device}} {{resource}}",
      ),
    ],
    "short",
  ));
  lay.add(12, 8, timeseries(
    "QPs by type and state",
    "Queue pairs per device by type (RC, UD, ...) and state (RTS, ERR, ...). " +
      "QPs piling up in ERR are failed connections nobody cleaned up.",
    [
      target(
        `sum by (instance, device, qp_type, state) (rnic_resource_qps{${DSEL}})`,
        "{{instance}} {{device}} {{qp_type}} {{state}}",
      ),
    ],
    "short",
  ));
  lay.add(12, 8, timeseries(
    "Pinned memory by process (top 10)",
    "Bytes registered in memory regions per command name (sum of MR " +
      "lengths): memory the kernel cannot swap or move.",
    [
      target(
        `topk(10, rnic_resource_mr_pinned_bytes{${DSEL}})`,
        "{{instance}} {{device}} {{comm}}",
      ),
    ],
    "bytes",
  ));
  lay.add(12, 8, timeseries(
    "CQ entries by process (top 10)",
    "Total CQ depth per command name; compare with the largest single CQ " +
      "when chasing overruns.",
    [
      target(
        `topk(10, rnic_resource_cq_entries{${DSEL}})`,
        "total {{instance}} {{device}} {{comm}}",
      ),
      target(
        `topk(10, rnic_resource_cq_max_entries{${DSEL}})`,
        "largest {{instance}} {{device}} {{comm}}",
      ),
    ],
    "short",
  ));
  lay.add(24, 8, table(
    "Resources by process",
    "QPs, CQs, MRs, PDs and verbs contexts per command name and device.",
    [
      target(`rnic_resource_comm_qps{${DSEL}}`),
      target(`rnic_resource_cqs{${DSEL}}`),
      target(`rnic_resource_mrs{${DSEL}}`),
      target(`rnic_resource_mr_pinned_bytes{${DSEL}}`),
      target(`rnic_resource_pds{${DSEL}}`),
      target(`rnic_resource_contexts{${DSEL}}`),
    ],
    "short",
    {
      overrides: [
        columnOverride("Value #A", "short", { display: "QPs" }),
        columnOverride("Value #B", "short", { display: "CQs" }),
        columnOverride("Value #C", "short", { display: "MRs" }),
        columnOverride("Value #D", "bytes", { display: "Pinned" }),
        columnOverride("Value #E", "short", { display: "PDs" }),
        columnOverride("Value #F", "short", { display: "Contexts" }),
      ],
      exclude: ["job"],
    },
  ));
  lay.add(24, 8, timeseries(
    "Retransmit triggers by process (bound QP counters)",
    "Per-process sums of the RDMA counters bound to its QPs (netlink " +
      "statistic, when QP counters are bound): mlx5 local_ack_timeout_err " +
      "and packet_seq_err, rxe completer_retry_err. Already included in the " +
      "port totals.",
    [
      target(
        `sum by (instance, device, comm) ` +
          `(rate(rnic_qp_counter_local_ack_timeout_err_total{${DSEL}}[$__rate_interval]))`,
        "ack timeout {{instance}} {{device}} {{comm}}",
      ),
      target(
        `sum by (instance, device, comm) ` +
          `(rate(rnic_qp_counter_packet_seq_err_total{${DSEL}}[$__rate_interval]))`,
        "seq err {{instance}} {{device}} {{comm}}",
      ),
      target(
        `sum by (instance, device, comm) ` +
          `(rate(rnic_qp_counter_completer_retry_err_total{${DSEL}}[$__rate_interval]))`,
        "retry {{instance}} {{device}} {{comm}}",
      ),
    ],
    "cps",
  ));
  return rnicDashboard(
    "rnic-probe-resources",
    "RNIC / Probe latency, CQs and resources",
    "Active probe latency and errors, completion-queue errors and the RDMA " +
      "resources (QPs, CQs, MRs) each process holds.",
    lay,
    [
      queryVariable(
        "operation",
        `label_values(rnic_probe_latency_seconds_count{${DSEL}}, operation)`,
      ),
    ],
  );
}
