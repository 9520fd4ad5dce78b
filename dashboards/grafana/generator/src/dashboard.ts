// The dashboard frame every RNIC dashboard shares: variables, links to the
// others, time settings, read-only.
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";

import { Layout } from "./layout";
import { DATASOURCE, SEL } from "./queries";

// A multi-value variable with "All" matching any value, refreshed with the
// time range.
export function queryVariable(name: string, query: string) {
  return new dashboard.QueryVariableBuilder(name)
    .label(name)
    .datasource(DATASOURCE)
    .definition(query)
    .query({ query, refId: name })
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .multi(true)
    .includeAll(true)
    .allValue(".+")
    .current({} as dashboard.VariableOption)
    .options([])
    .regex("")
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .hide(dashboard.VariableHide.DontHide);
}

function variables() {
  return [
    new dashboard.DatasourceVariableBuilder("datasource")
      .label("Data source")
      .type("prometheus")
      .current({} as dashboard.VariableOption)
      .regex("")
      .hide(dashboard.VariableHide.DontHide),
    // rnic_scrape_collector_success is always exported; rnic_build_info is
    // not with --web.disable-exporter-metrics.
    queryVariable("job", "label_values(rnic_scrape_collector_success, job)"),
    queryVariable(
      "instance",
      'label_values(rnic_scrape_collector_success{job=~"$job"}, instance)',
    ),
    queryVariable("device", `label_values(rnic_port_info{${SEL}}, device)`),
  ];
}

export function rnicDashboard(
  uid: string,
  title: string,
  description: string,
  layout: Layout,
  extraVariables: dashboard.QueryVariableBuilder[] = [],
): dashboard.Dashboard {
  const builder = new dashboard.DashboardBuilder(title)
    // null: Grafana assigns the numeric id when it stores the dashboard.
    .id(null)
    .uid(uid)
    .description(description)
    .tags(["rnic", "rdma"])
    .readonly()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .version(1)
    .refresh("1m")
    .time({ from: "now-6h", to: "now" })
    .timezone("")
    .fiscalYearStartMonth(0)
    .liveNow(false)
    .weekStart("")
    .annotation(
      new dashboard.AnnotationQueryBuilder()
        .builtIn(1)
        .datasource({ type: "grafana", uid: "-- Grafana --" })
        .enable(true)
        .hide(true)
        .iconColor("rgba(0, 211, 255, 1)")
        .name("Annotations & Alerts")
        .type("dashboard"),
    )
    .link(
      new dashboard.DashboardLinkBuilder("RNIC dashboards")
        .type(dashboard.DashboardLinkType.Dashboards)
        .tags(["rnic"])
        .asDropdown(true)
        .includeVars(true)
        .keepTime(true),
    )
    .variables([...variables(), ...extraVariables]);
  for (const item of layout.items) {
    if (item instanceof dashboard.RowBuilder) builder.withRow(item);
    else builder.withPanel(item);
  }
  const built = builder.build();
  // The SDK's defaults put the link and the annotation toggle in the
  // controls menu ("inControlsMenu", the only value its types allow);
  // without `placement` Grafana shows them in the dashboard's controls bar.
  for (const link of built.links ?? []) delete link.placement;
  for (const a of built.annotations?.list ?? []) delete a.placement;
  return built;
}
