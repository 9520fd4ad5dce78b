import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import { columnOverride, stat, table, timeseries } from "./panels";
import { DSEL, target } from "./queries";

export function health(): Dashboard {
  const lay = new Layout();
  lay.row("Configuration drift (expect collector)");
  lay.add(4, 8, stat(
    "Failing checks",
    "Checks of the expect: section of --config.file that do not hold (alert " +
      "RnicConfigDrift).",
    [target(`count(rnic_expect_check_ok{${DSEL}} == 0) or vector(0)`)],
    "none",
    { thresholds: [[1, "orange"]] },
  ));
  lay.add(20, 8, table(
    "Drift by check",
    "One row per failing check: device, port, check and the expected value.",
    [target(`rnic_expect_check_ok{${DSEL}} == 0`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.row("PCIe (pcie collector)");
  lay.add(24, 7, table(
    "PCIe links",
    "Negotiated against maximum link speed (transfers per second per lane) " +
      "and width of each RDMA PCI function; VFs name their PF (alert " +
      "RnicPcieLinkDowntrained).",
    [
      target(`rnic_pcie_link_speed_transfers_per_second{${DSEL}}`),
      target(`rnic_pcie_link_max_speed_transfers_per_second{${DSEL}}`),
      target(`rnic_pcie_link_width_lanes{${DSEL}}`),
      target(`rnic_pcie_link_max_width_lanes{${DSEL}}`),
      target(`rnic_pcie_link_downtrained{${DSEL}}`),
    ],
    "none",
    {
      overrides: [
        columnOverride("Value #A", "short", { display: "speed (T/s)" }),
        columnOverride("Value #B", "short", { display: "max speed (T/s)" }),
        columnOverride("Value #C", "none", { display: "width" }),
        columnOverride("Value #D", "none", { display: "max width" }),
        columnOverride("Value #E", "none", { display: "downtrained" }),
      ],
      exclude: ["job"],
    },
  ));
  lay.add(24, 8, timeseries(
    "AER errors",
    "PCIe Advanced Error Reporting errors per second by class and type " +
      "(alerts RnicPcieFatalErrors, RnicPcieNonFatalErrors, " +
      "RnicPcieCorrectableErrorsHigh).",
    [
      target(
        `sum by (instance, device, class, error) ` +
          `(rate(rnic_pcie_aer_errors_total{${DSEL}}[$__rate_interval])) > 0`,
        "{{instance}} {{device}} {{class}} {{error}}",
      ),
    ],
    "cps",
  ));
  lay.row("Link stability (carrier collector)");
  lay.add(24, 8, timeseries(
    "Carrier changes",
    "Carrier changes of the netdevs of RDMA ports; each flap is two (alert " +
      "RnicNetdevCarrierFlapping).",
    [
      target(
        `increase(rnic_netdev_carrier_changes_total{${DSEL}}[$__rate_interval])`,
        "{{instance}} {{device}}/{{port}} {{netdev}}",
      ),
    ],
    "short",
    { draw: "bars" },
  ));
  return rnicDashboard(
    "rnic-health",
    "RNIC / Host health",
    "Below the RDMA counters: configuration drift against the expect: " +
      "section, PCIe link training and AER errors, netdev link stability.",
    lay,
  );
}
