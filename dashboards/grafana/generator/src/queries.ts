// Selectors, the datasource reference and Prometheus targets every
// dashboard shares.
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import * as prometheus from "@grafana/grafana-foundation-sdk/prometheus";

// Selector every query carries: the dashboard-linter job/instance rules.
export const SEL = 'job=~"$job",instance=~"$instance"';
export const DSEL = SEL + ',device=~"$device"';
export const DATASOURCE = { type: "prometheus", uid: "${datasource}" };
export const PORT_LEGEND = "{{instance}} {{device}}/{{port}}";

export type Target = prometheus.DataqueryBuilder;

// A range query unless `instant`; panels that need another form (tables,
// heatmaps) change it.
export function target(
  expr: string,
  legend = "",
  opts: { instant?: boolean; fmt?: prometheus.PromQueryFormat } = {},
): Target {
  const t = new prometheus.DataqueryBuilder()
    .datasource(DATASOURCE)
    .expr(expr)
    .legendFormat(legend)
    .refId("A");
  if (opts.fmt) t.format(opts.fmt);
  return opts.instant ? t.instant() : t.range();
}

// Letters A, B, ... in order: tables name their columns "Value #<refId>".
export function refs(targets: Target[]): Target[] {
  targets.forEach((t, i) => t.refId(String.fromCharCode(65 + i)));
  return targets;
}

// Value mappings with a display text and, optionally, a colour.
export function valueMap(
  entries: [string, string, string?][],
): dashboard.ValueMapping[] {
  const options: Record<string, dashboard.ValueMappingResult> = {};
  entries.forEach(([value, text, color], index) => {
    options[value] = color ? { text, color, index } : { text, index };
  });
  return [{ type: dashboard.MappingType.ValueToText, options }];
}

export const PORT_STATE_MAPPINGS = valueMap([
  ["1", "DOWN", "red"],
  ["2", "INIT", "orange"],
  ["3", "ARMED", "orange"],
  ["4", "ACTIVE", "green"],
  ["5", "ACTIVE_DEFER", "green"],
]);
export const PHYS_STATE_MAPPINGS = valueMap([
  ["1", "Sleep"],
  ["2", "Polling", "orange"],
  ["3", "Disabled", "red"],
  ["4", "PortConfigurationTraining"],
  ["5", "LinkUp", "green"],
  ["6", "LinkErrorRecovery", "orange"],
  ["7", "PhyTest"],
]);
