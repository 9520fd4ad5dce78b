import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { rnicDashboard } from "./dashboard";
import { Layout } from "./layout";
import { columnOverride, stat, table, timeseries } from "./panels";
import { DSEL, SEL, target } from "./queries";

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
  lay.row("GPU cluster context (gpu collector, dcgm-exporter)");
  lay.add(12, 8, table(
    "GPUDirect RDMA readiness",
    "Checks that are not ok: peer-memory path, IOMMU mode, ACS and ATS " +
      "(alert RnicGpuDirectNotReady; unknown is a fact the exporter could " +
      "not read).",
    [target(`rnic_gpudirect_check_state{${SEL},state!="ok"}`)],
    "none",
    { exclude: ["job", "Value"] },
  ));
  lay.add(12, 8, table(
    "Nearest RDMA devices per GPU",
    "For each GPU, the RDMA devices no other is closer to: rail and PCI " +
      "relation as nvidia-smi topo -m names it.",
    [target(`rnic_gpu_topology_info{${DSEL},nearest="true"}`)],
    "none",
    { exclude: ["job", "Value", "nearest", "gpu_vendor"] },
  ));
  lay.add(12, 8, timeseries(
    "RDMA traffic of each GPU's rail",
    "Bytes per second both ways through the RDMA devices nearest to each " +
      "GPU (rnic_gpu_rules.yaml; needs rnic_rules.yaml).",
    [
      target(
        `node_gpu:rnic_nearest_rdma_bytes:rate5m{${SEL}}`,
        "{{node}} GPU {{gpu}}",
      ),
    ],
    "Bps",
  ));
  lay.add(12, 8, timeseries(
    "GPU activity (dcgm-exporter)",
    "dcgm-exporter's DCGM_FI_PROF_GR_ENGINE_ACTIVE of the GPUs these " +
      "exporters report, joined on node and pci_bus_id: a busy GPU on an " +
      "idle rail is alert RnicGpuBusyRailIdle.",
    [
      target(
        `node_gpu:dcgm_gr_engine_active:avg5m{${SEL}}`,
        "{{node}} GPU {{gpu}}",
      ),
    ],
    "percentunit",
  ));
  lay.add(12, 8, timeseries(
    "Retransmits and CNPs of each GPU's rail",
    "Retransmit triggers and handled CNPs per second of the RDMA devices " +
      "nearest to each GPU.",
    [
      target(
        `node_gpu:rnic_nearest_retransmits:rate5m{${SEL}}`,
        "{{node}} GPU {{gpu}} retransmits",
      ),
      target(
        `node_gpu:rnic_nearest_cnp_handled:rate5m{${SEL}}`,
        "{{node}} GPU {{gpu}} CNPs handled",
      ),
    ],
    "ops",
  ));
  lay.add(12, 8, timeseries(
    "PFC paused time of each GPU's rail",
    "Share of time the network paused the RDMA devices nearest to each GPU " +
      "(received PFC, most paused priority; roce collector).",
    [
      target(
        `node_gpu:rnic_nearest_pfc_rx_paused:ratio_rate5m{${SEL}}`,
        "{{node}} GPU {{gpu}}",
      ),
    ],
    "percentunit",
  ));
  return rnicDashboard(
    "rnic-health",
    "RNIC / Host health",
    "Below the RDMA counters: configuration drift against the expect: " +
      "section, PCIe link training and AER errors, netdev link stability, " +
      "GPUDirect readiness and each GPU's rail.",
    lay,
  );
}
