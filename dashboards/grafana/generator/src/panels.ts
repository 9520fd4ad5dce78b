// The panel kinds the dashboards use, with the options they share.
import * as common from "@grafana/grafana-foundation-sdk/common";
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import * as heatmapPanel from "@grafana/grafana-foundation-sdk/heatmap";
import * as prometheus from "@grafana/grafana-foundation-sdk/prometheus";
import * as statPanel from "@grafana/grafana-foundation-sdk/stat";
import * as stateTimelinePanel from "@grafana/grafana-foundation-sdk/statetimeline";
import * as tablePanel from "@grafana/grafana-foundation-sdk/table";
import * as timeseriesPanel from "@grafana/grafana-foundation-sdk/timeseries";

import { DATASOURCE, refs, target, type Target } from "./queries";

type Override = { matcher: dashboard.MatcherConfig; properties: dashboard.DynamicConfigValue[] };
export type Thresholds = [number, string][];

// Green below the first step.
function thresholds(steps: Thresholds, base = "green") {
  return new dashboard.ThresholdsConfigBuilder()
    .mode(dashboard.ThresholdsMode.Absolute)
    .steps([
      { color: base, value: null },
      ...steps.map(([value, color]) => ({ color, value })),
    ]);
}

export function timeseries(
  title: string,
  description: string,
  targets: Target[],
  unit: string,
  opts: {
    stack?: boolean;
    mappings?: dashboard.ValueMapping[];
    draw?: "line" | "bars";
  } = {},
) {
  return new timeseriesPanel.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(refs(targets))
    .unit(unit)
    .mappings(opts.mappings ?? [])
    .drawStyle(
      opts.draw === "bars" ? common.GraphDrawStyle.Bars : common.GraphDrawStyle.Line,
    )
    .lineWidth(1)
    .fillOpacity(10)
    .showPoints(common.VisibilityMode.Never)
    .spanNulls(false)
    .stacking(
      new common.StackingConfigBuilder()
        .mode(opts.stack ? common.StackingMode.Normal : common.StackingMode.None)
        .group("A"),
    )
    .overrides([])
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.Table)
        .placement(common.LegendPlacement.Bottom)
        .calcs(["mean", "max", "lastNotNull"]),
    )
    .tooltip(
      new common.VizTooltipOptionsBuilder()
        .mode(common.TooltipDisplayMode.Multi)
        .sort(common.SortOrder.Descending),
    );
}

export function stat(
  title: string,
  description: string,
  targets: Target[],
  unit: string,
  opts: { thresholds?: Thresholds; mappings?: dashboard.ValueMapping[] } = {},
) {
  return new statPanel.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(refs(targets))
    .unit(unit)
    .mappings(opts.mappings ?? [])
    .thresholds(thresholds(opts.thresholds ?? []))
    .overrides([])
    .reduceOptions(
      new common.ReduceDataOptionsBuilder()
        .calcs(["lastNotNull"])
        .fields("")
        .values(false),
    )
    .colorMode(common.BigValueColorMode.Background)
    .graphMode(common.BigValueGraphMode.None)
    .textMode(common.BigValueTextMode.Auto)
    .orientation(common.VizOrientation.Auto);
}

export function stateTimeline(
  title: string,
  description: string,
  targets: Target[],
  mappings: dashboard.ValueMapping[],
) {
  return new stateTimelinePanel.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(refs(targets))
    .unit("none")
    .mappings(mappings)
    .colorScheme(
      new dashboard.FieldColorBuilder().mode(dashboard.FieldColorModeId.Thresholds),
    )
    .thresholds(thresholds([], "text"))
    .overrides([])
    .showValue(common.VisibilityMode.Never)
    .mergeValues(true)
    .rowHeight(0.8)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom),
    )
    // The SDK's default sort is "asc"; Grafana's own default is none.
    .tooltip(
      new common.VizTooltipOptionsBuilder()
        .mode(common.TooltipDisplayMode.Single)
        .sort(common.SortOrder.None),
    );
}

// Instant queries merged on their shared labels, one row per port.
export function table(
  title: string,
  description: string,
  targets: Target[],
  unit: string,
  opts: { overrides?: Override[]; exclude?: string[] } = {},
) {
  for (const t of targets) t.instant().format(prometheus.PromQueryFormat.Table);
  const excludeByName: Record<string, boolean> = {};
  for (const name of ["Time", "__name__", ...(opts.exclude ?? [])]) {
    excludeByName[name] = true;
  }
  return new tablePanel.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(refs(targets))
    .unit(unit)
    .align(common.FieldTextAlignment.Auto)
    .overrides(opts.overrides ?? [])
    .withTransformation({ id: "merge", options: {} })
    .withTransformation({
      id: "organize",
      options: { excludeByName, renameByName: {} },
    })
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false));
}

export function columnOverride(
  name: string,
  unit: string,
  opts: { mappings?: dashboard.ValueMapping[]; display?: string } = {},
): Override {
  const properties: dashboard.DynamicConfigValue[] = [{ id: "unit", value: unit }];
  if (opts.mappings) properties.push({ id: "mappings", value: opts.mappings });
  if (opts.display) properties.push({ id: "displayName", value: opts.display });
  return { matcher: { id: "byName", options: name }, properties };
}

// Prometheus histogram buckets as they are (no calculation by Grafana).
export function heatmap(
  title: string,
  description: string,
  targets: Target[],
  unit: string,
) {
  for (const t of targets) {
    t.format(prometheus.PromQueryFormat.Heatmap).legendFormat("{{le}}");
  }
  return new heatmapPanel.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(refs(targets))
    .unit(unit)
    .overrides([])
    .calculate(false)
    .yAxis(
      new heatmapPanel.YAxisConfigBuilder()
        .unit(unit)
        .axisPlacement(common.AxisPlacement.Left),
    )
    .cellGap(1)
    .color(
      new heatmapPanel.HeatmapColorOptionsBuilder()
        .mode(heatmapPanel.HeatmapColorMode.Scheme)
        .scheme("Oranges")
        .steps(64)
        // Unused in scheme mode; Grafana's defaults rather than the SDK's
        // zero values.
        .fill("dark-orange")
        .exponent(0.5),
    )
    .tooltip(
      new heatmapPanel.HeatmapTooltipBuilder()
        .mode(common.TooltipDisplayMode.Single)
        .yHistogram(true),
    )
    .showLegend();
}

// An instant query pivoted to rows x columns (by default source (instance
// device) x peer), cells coloured by thresholds; `link`, when given, is the
// URL of a data link on every cell (Grafana's ${__field.name} is the
// cell's column, ${__data.fields[...]} its row).
export function matrix(
  title: string,
  description: string,
  expr: string,
  unit: string,
  steps: Thresholds,
  opts: { row?: string; column?: string; link?: { title: string; url: string } } = {},
) {
  const row = opts.row ?? "source";
  const column = opts.column ?? "peer";
  const panel = new tablePanel.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(refs([target(expr, "", { instant: true, fmt: prometheus.PromQueryFormat.Table })]))
    .unit(unit)
    .thresholds(thresholds(steps))
    .align(common.FieldTextAlignment.Auto)
    .cellOptions({ type: common.TableCellDisplayMode.ColorBackground })
    // The row-header column keeps plain cells.
    .overrideByName(`${row}\\${column}`, [
      { id: "custom.cellOptions", value: { type: "auto" } },
    ])
    .withTransformation({
      id: "groupingToMatrix",
      options: { columnField: column, rowField: row, valueField: "Value" },
    })
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false));
  if (opts.link) {
    panel.overrideByRegexp("^[^\\\\]*$", [
      { id: "links", value: [{ title: opts.link.title, url: opts.link.url }] },
    ]);
  }
  return panel;
}
