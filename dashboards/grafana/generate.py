#!/usr/bin/env python3
"""Writes the rnic_exporter Grafana dashboards (classic JSON model).

The JSON files next to this script are generated: edit this file, run
`python3 dashboards/grafana/generate.py`, and commit both. The dashboards
test (tests/dashboards) fails when the committed JSON differs from what this
script produces (`--check`), and lints the JSON.

Python standard library only: grafonnet and jsonnet-bundler are not
packaged in Debian 12, so this plays the role a mixin's dashboards.libsonnet
would.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Selector every query carries: the dashboard-linter job/instance rules.
SEL = 'job=~"$job",instance=~"$instance"'
DSEL = SEL + ',device=~"$device"'
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
PORT_LEGEND = "{{instance}} {{device}}/{{port}}"

PORT_STATE_MAPPINGS = [{
    "type": "value",
    "options": {
        "1": {"text": "DOWN", "color": "red", "index": 0},
        "2": {"text": "INIT", "color": "orange", "index": 1},
        "3": {"text": "ARMED", "color": "orange", "index": 2},
        "4": {"text": "ACTIVE", "color": "green", "index": 3},
        "5": {"text": "ACTIVE_DEFER", "color": "green", "index": 4},
    },
}]
PHYS_STATE_MAPPINGS = [{
    "type": "value",
    "options": {
        "1": {"text": "Sleep", "index": 0},
        "2": {"text": "Polling", "color": "orange", "index": 1},
        "3": {"text": "Disabled", "color": "red", "index": 2},
        "4": {"text": "PortConfigurationTraining", "index": 3},
        "5": {"text": "LinkUp", "color": "green", "index": 4},
        "6": {"text": "LinkErrorRecovery", "color": "orange", "index": 5},
        "7": {"text": "PhyTest", "index": 6},
    },
}]


def variables():
    def query_var(name, query, label=None):
        return {
            "name": name,
            "label": label or name,
            "type": "query",
            "datasource": DATASOURCE,
            "definition": query,
            "query": {"query": query, "refId": name},
            "refresh": 2,  # on time range change
            "multi": True,
            "includeAll": True,
            "allValue": ".+",
            "current": {},
            "options": [],
            "regex": "",
            "sort": 1,
            "hide": 0,
        }

    return [
        {
            "name": "datasource",
            "label": "Data source",
            "type": "datasource",
            "query": "prometheus",
            "current": {},
            "options": [],
            "refresh": 1,
            "regex": "",
            "hide": 0,
        },
        # rnic_scrape_collector_success is always exported;
        # rnic_build_info is not with --web.disable-exporter-metrics.
        query_var("job", "label_values(rnic_scrape_collector_success, job)"),
        query_var("instance",
                  'label_values(rnic_scrape_collector_success{job=~"$job"}, '
                  'instance)'),
        query_var("device",
                  'label_values(rnic_port_info{%s}, device)' % SEL),
    ]


class Layout:
    """Places panels left to right on Grafana's 24-column grid."""

    def __init__(self):
        self.x = 0
        self.y = 0
        self.row_h = 0
        self.next_id = 1
        self.panels = []

    def row(self, title):
        self.newline()
        self.panels.append({
            "type": "row",
            "id": self._id(),
            "title": title,
            "collapsed": False,
            "panels": [],
            "gridPos": {"x": 0, "y": self.y, "w": 24, "h": 1},
        })
        self.y += 1

    def add(self, panel, w, h):
        if self.x + w > 24:
            self.newline()
        panel["id"] = self._id()
        panel["gridPos"] = {"x": self.x, "y": self.y, "w": w, "h": h}
        self.panels.append(panel)
        self.x += w
        self.row_h = max(self.row_h, h)

    def newline(self):
        if self.x:
            self.y += self.row_h
        self.x = 0
        self.row_h = 0

    def _id(self):
        self.next_id += 1
        return self.next_id - 1


def target(expr, legend="", ref="A", instant=False, fmt=None):
    t = {
        "datasource": DATASOURCE,
        "expr": expr,
        "legendFormat": legend,
        "refId": ref,
        "range": not instant,
        "instant": instant,
    }
    if fmt:
        t["format"] = fmt
    return t


def refs(targets):
    for i, t in enumerate(targets):
        t["refId"] = chr(ord("A") + i)
    return targets


def timeseries(title, description, targets, unit, stack=False, mappings=None,
               draw="line"):
    return {
        "type": "timeseries",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": refs(targets),
        "fieldConfig": {
            "defaults": {
                "unit": unit,
                "mappings": mappings or [],
                "custom": {
                    "drawStyle": draw,
                    "lineWidth": 1,
                    "fillOpacity": 10,
                    "showPoints": "never",
                    "spanNulls": False,
                    "stacking": {"mode": "normal" if stack else "none",
                                 "group": "A"},
                },
            },
            "overrides": [],
        },
        "options": {
            "legend": {"displayMode": "table", "placement": "bottom",
                       "calcs": ["mean", "max", "lastNotNull"]},
            "tooltip": {"mode": "multi", "sort": "desc"},
        },
    }


def stat(title, description, targets, unit, thresholds=None, mappings=None):
    steps = [{"color": "green", "value": None}]
    for value, color in thresholds or []:
        steps.append({"color": color, "value": value})
    return {
        "type": "stat",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": refs(targets),
        "fieldConfig": {
            "defaults": {
                "unit": unit,
                "mappings": mappings or [],
                "thresholds": {"mode": "absolute", "steps": steps},
            },
            "overrides": [],
        },
        "options": {
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                              "values": False},
            "colorMode": "background",
            "graphMode": "none",
            "textMode": "auto",
            "orientation": "auto",
        },
    }


def state_timeline(title, description, targets, mappings):
    return {
        "type": "state-timeline",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": refs(targets),
        "fieldConfig": {
            "defaults": {"unit": "none", "mappings": mappings,
                         "color": {"mode": "thresholds"},
                         "thresholds": {"mode": "absolute", "steps": [
                             {"color": "text", "value": None}]}},
            "overrides": [],
        },
        "options": {"showValue": "never", "mergeValues": True,
                    "rowHeight": 0.8,
                    "legend": {"displayMode": "list", "placement": "bottom"}},
    }


def table(title, description, targets, unit, overrides=None, exclude=None):
    """Instant queries merged on their shared labels, one row per port."""
    for t in targets:
        t.update({"instant": True, "range": False, "format": "table"})
    excluded = {name: True for name in ["Time", "__name__"] + (exclude or [])}
    return {
        "type": "table",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": refs(targets),
        "fieldConfig": {
            "defaults": {"unit": unit, "custom": {"align": "auto"}},
            "overrides": overrides or [],
        },
        "transformations": [
            {"id": "merge", "options": {}},
            {"id": "organize",
             "options": {"excludeByName": excluded, "renameByName": {}}},
        ],
        "options": {"showHeader": True, "cellHeight": "sm",
                    "footer": {"show": False}},
    }


def column_override(name, unit, mappings=None, display=None):
    props = [{"id": "unit", "value": unit}]
    if mappings:
        props.append({"id": "mappings", "value": mappings})
    if display:
        props.append({"id": "displayName", "value": display})
    return {"matcher": {"id": "byName", "options": name}, "properties": props}


def heatmap(title, description, targets, unit):
    for t in targets:
        t.update({"format": "heatmap", "legendFormat": "{{le}}"})
    return {
        "type": "heatmap",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": refs(targets),
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {
            "calculate": False,
            "yAxis": {"unit": unit, "axisPlacement": "left"},
            "cellGap": 1,
            "color": {"mode": "scheme", "scheme": "Oranges", "steps": 64},
            "tooltip": {"show": True, "yHistogram": True},
            "legend": {"show": True},
        },
    }


def dashboard(uid, title, description, layout):
    return {
        "id": None,
        "uid": uid,
        "title": title,
        "description": description,
        "tags": ["rnic", "rdma"],
        "editable": False,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "1m",
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "timezone": "",
        "fiscalYearStartMonth": 0,
        "liveNow": False,
        "weekStart": "",
        "annotations": {"list": [{
            "builtIn": 1,
            "datasource": {"type": "grafana", "uid": "-- Grafana --"},
            "enable": True,
            "hide": True,
            "iconColor": "rgba(0, 211, 255, 1)",
            "name": "Annotations & Alerts",
            "type": "dashboard",
        }]},
        "links": [{
            "title": "RNIC dashboards",
            "type": "dashboards",
            "tags": ["rnic"],
            "asDropdown": True,
            "includeVars": True,
            "keepTime": True,
        }],
        "templating": {"list": variables()},
        "panels": layout.panels,
    }


def overview():
    lay = Layout()
    lay.row("Fleet")
    lay.add(stat("Exporters", "rnic_exporter instances reporting.",
                 [target("count(count by (job, instance) "
                         "(rnic_scrape_collector_success{%s}))" % SEL,
                         instant=True)],
                 "none"), 4, 4)
    lay.add(stat("Ports ACTIVE", "Ports in state ACTIVE or ACTIVE_DEFER.",
                 [target("count(rnic_port_state{%s} >= 4) or vector(0)" % DSEL,
                         instant=True)], "none"), 4, 4)
    lay.add(stat("Ports not ACTIVE",
                 "Ports in state DOWN, INIT or ARMED (includes unused ports).",
                 [target("count(rnic_port_state{%s} < 4) or vector(0)" % DSEL,
                         instant=True)], "none", thresholds=[(1, "orange")]),
            4, 4)
    lay.add(stat("Ports below usual rate",
                 "Ports whose negotiated rate is under their highest rate of "
                 "the last day (alert RnicPortRateDegraded).",
                 [target("count(rnic_port_rate_bytes_per_second{%s} < "
                         "max_over_time(rnic_port_rate_bytes_per_second{%s}[1d])"
                         ") or vector(0)" % (DSEL, DSEL), instant=True)],
                 "none", thresholds=[(1, "orange")]), 4, 4)
    lay.add(stat("Saturated counters",
                 "PMA error counters stuck at their maximum: they no longer "
                 "count new errors.",
                 [target("count(rnic_port_pma_saturated{%s} > 0) or vector(0)"
                         % DSEL, instant=True)],
                 "none", thresholds=[(1, "orange")]), 4, 4)
    lay.add(stat("Collectors failing",
                 "Collectors whose last scrape failed "
                 "(rnic_scrape_collector_success == 0).",
                 [target("count(rnic_scrape_collector_success{%s} == 0) or vector(0)"
                         % SEL, instant=True)],
                 "none", thresholds=[(1, "red")]), 4, 4)

    lay.row("Ports")
    lay.add(table(
        "Ports",
        "Every port with its link layer, netdev, state, physical state and "
        "negotiated rate.",
        [target("rnic_port_info{%s}" % DSEL),
         target("rnic_port_state{%s}" % DSEL),
         target("rnic_port_physical_state{%s}" % DSEL),
         target("rnic_port_rate_bytes_per_second{%s}" % DSEL)],
        "none",
        overrides=[
            column_override("Value #A", "none", display="info"),
            column_override("Value #B", "none", PORT_STATE_MAPPINGS, "State"),
            column_override("Value #C", "none", PHYS_STATE_MAPPINGS,
                            "Physical state"),
            column_override("Value #D", "Bps", display="Rate"),
        ],
        exclude=["job", "Value #A"]), 24, 8)
    lay.add(table(
        "Devices",
        "Device metadata from rnic_device_info (firmware, board, driver).",
        [target("rnic_device_info{%s}" % DSEL)], "none",
        exclude=["job", "Value"]), 24, 6)
    lay.add(state_timeline(
        "Port state",
        "Logical port state over time (kernel enum: 1 DOWN, 2 INIT, 3 ARMED, "
        "4 ACTIVE, 5 ACTIVE_DEFER).",
        [target("rnic_port_state{%s}" % DSEL, PORT_LEGEND)],
        PORT_STATE_MAPPINGS), 12, 8)
    lay.add(timeseries(
        "Negotiated link rate",
        "rnic_port_rate_bytes_per_second: a drop means the link retrained at "
        "a lower speed or width.",
        [target("rnic_port_rate_bytes_per_second{%s}" % DSEL, PORT_LEGEND)],
        "Bps"), 12, 8)

    lay.row("Traffic (vendor-neutral recording rules)")
    lay.add(timeseries(
        "Transmitted",
        "device_port:rnic_transmitted_bytes:rate5m: PMA port_xmit_data or "
        "the driver's byte counter (rxe has none).",
        [target("device_port:rnic_transmitted_bytes:rate5m{%s}" % DSEL,
                PORT_LEGEND)], "Bps"), 12, 8)
    lay.add(timeseries(
        "Received",
        "device_port:rnic_received_bytes:rate5m.",
        [target("device_port:rnic_received_bytes:rate5m{%s}" % DSEL,
                PORT_LEGEND)], "Bps"), 12, 8)
    lay.add(timeseries(
        "Link utilisation",
        "Throughput as a share of the negotiated rate, transmit and receive.",
        [target("device_port:rnic_transmit_utilisation:ratio_rate5m{%s}" % DSEL,
                "tx " + PORT_LEGEND),
         target("device_port:rnic_receive_utilisation:ratio_rate5m{%s}" % DSEL,
                "rx " + PORT_LEGEND)], "percentunit"), 12, 8)
    lay.add(timeseries(
        "Packets",
        "Packets per second, transmit and receive (PMA or driver counters).",
        [target("device_port:rnic_transmitted_packets:rate5m{%s}" % DSEL,
                "tx " + PORT_LEGEND),
         target("device_port:rnic_received_packets:rate5m{%s}" % DSEL,
                "rx " + PORT_LEGEND)], "pps"), 12, 8)

    lay.row("Link errors (PMA)")
    lay.add(timeseries(
        "Symbol errors",
        "Physical-layer symbol errors per second (dirty or failing "
        "cable/transceiver).",
        [target("rate(rnic_port_symbol_errors_total{%s}[$__rate_interval])"
                % DSEL, PORT_LEGEND)], "cps"), 8, 8)
    lay.add(timeseries(
        "Link downed",
        "Times the link went down, per interval.",
        [target("increase(rnic_port_link_downed_total{%s}[$__rate_interval])"
                % DSEL, PORT_LEGEND)], "short", draw="bars"), 8, 8)
    lay.add(table(
        "Saturated counters",
        "PMA counters that reached their maximum. Their rates read zero from "
        "then on, whatever happens on the link.",
        [target("rnic_port_pma_saturated{%s} > 0" % DSEL)], "none",
        exclude=["job", "Value"]), 8, 8)

    lay.add(table(
        "Host placement",
        "NUMA node of each RDMA device, its interrupt vectors, and how many "
        "may run on CPUs of another node (alert RnicIrqsOffNumaNode).",
        [target("rnic_numa_node{%s}" % DSEL),
         target("rnic_irqs{%s}" % DSEL),
         target("rnic_irqs_off_numa_node{%s}" % DSEL)],
        "none",
        overrides=[column_override("Value #A", "none", display="NUMA node"),
                   column_override("Value #B", "none", display="IRQs"),
                   column_override("Value #C", "none",
                                   display="IRQs off node")],
        exclude=["job"]), 24, 6)

    lay.row("PMU events (perf collector, opt-in)")
    lay.add(timeseries(
        "PMU event rates",
        "Rates of the perf events configured in the perf: section of "
        "--config.file, summed over CPUs (e.g. uncore_iio bytes of the NIC's "
        "PCIe root port, which count 4-byte units).",
        [target("sum by (instance, pmu, event) (rate(rnic_perf_events_total"
                "{%s}[$__rate_interval]))" % SEL,
                "{{instance}} {{pmu}} {{event}}")], "cps"), 18, 8)
    lay.add(table(
        "Unavailable PMU events",
        "Configured events the kernel refused to open (the exporter logs the "
        "reason once).",
        [target("rnic_perf_event_unavailable{%s} > 0" % SEL)], "none",
        exclude=["job", "Value"]), 6, 8)

    lay.row("Exporter")
    lay.add(timeseries(
        "Collector duration",
        "rnic_scrape_collector_duration_seconds per collector.",
        [target("rnic_scrape_collector_duration_seconds{%s}" % SEL,
                "{{instance}} {{collector}}")], "s"), 12, 7)
    lay.add(state_timeline(
        "Collector success",
        "rnic_scrape_collector_success per collector (1 ok, 0 failed).",
        [target("rnic_scrape_collector_success{%s}" % SEL,
                "{{instance}} {{collector}}")],
        [{"type": "value", "options": {
            "0": {"text": "failed", "color": "red", "index": 0},
            "1": {"text": "ok", "color": "green", "index": 1}}}]), 12, 7)
    return dashboard(
        "rnic-overview", "RNIC / Overview",
        "Hosts, RDMA devices and ports: state, rate, traffic, link errors and "
        "the exporter's own health.", lay)


def congestion():
    lay = Layout()
    lay.row("Congestion (ECN / DCQCN)")
    lay.add(timeseries(
        "ECN-marked packets received",
        "RoCEv2 packets that arrived with ECN CE set: the path to this port "
        "is congested (np_ecn_marked_roce_packets, rx_ecn_marked_pkts, "
        "RxECNMrkd). Per priority: packets this NIC itself marked because of "
        "host-side congestion (ethtool rx_prio*_marked, roce collector).",
        [target("device_port:rnic_ecn_marked_packets:rate5m{%s}" % DSEL,
                PORT_LEGEND),
         target("sum by (instance, device, port, priority) (rate("
                "rnic_rx_priority_ecn_marked_packets_total{%s}"
                "[$__rate_interval]))" % DSEL,
                "marked by this NIC " + PORT_LEGEND + " prio {{priority}}")],
        "pps"), 12, 8)
    lay.add(timeseries(
        "ECN-marked share",
        "ECN-marked packets as a share of received packets (alert "
        "RnicCongestionHigh above 5 %).",
        [target("device_port:rnic_ecn_marked_per_received_packet:ratio_rate5m"
                "{%s}" % DSEL, PORT_LEGEND)], "percentunit"), 12, 8)
    lay.add(timeseries(
        "CNPs sent",
        "Congestion notification packets this port sent to senders after "
        "seeing ECN marks (notification point).",
        [target("device_port:rnic_cnp_sent:rate5m{%s}" % DSEL, PORT_LEGEND)],
        "pps"), 8, 8)
    lay.add(timeseries(
        "CNPs handled",
        "CNPs this port received and acted on by slowing down (reaction "
        "point). Dashed: one-day mean, the RnicCnpSurge baseline.",
        [target("device_port:rnic_cnp_handled:rate5m{%s}" % DSEL,
                PORT_LEGEND),
         target("device_port:rnic_cnp_handled:rate5m_avg1d{%s}" % DSEL,
                "1d mean " + PORT_LEGEND)], "pps"), 8, 8)
    lay.add(timeseries(
        "CNPs ignored",
        "CNPs received but not acted on: congestion control is off or "
        "misconfigured for that traffic class (alert RnicCnpIgnored).",
        [target("device_port:rnic_cnp_ignored:rate5m{%s}" % DSEL,
                PORT_LEGEND)], "pps"), 8, 8)

    lay.row("Retransmits and timeouts (vendor-neutral)")
    lay.add(timeseries(
        "Retransmit triggers",
        "ACK timeouts, NAK sequence errors and implied NAKs (rxe: "
        "completer retries; efa: retransmitted packets).",
        [target("device_port:rnic_retransmits:rate5m{%s}" % DSEL,
                PORT_LEGEND)], "cps"), 8, 8)
    lay.add(timeseries(
        "Retransmit triggers by counter",
        "The kernel counters behind the retransmit series.",
        [target("device_port_counter:rnic_retransmits:rate5m{%s} > 0" % DSEL,
                PORT_LEGEND + " {{counter}}")], "cps"), 8, 8)
    lay.add(timeseries(
        "Retransmit share",
        "Retransmit triggers per transmitted packet (alert "
        "RnicRetransmitsHigh above 0.1 %).",
        [target("device_port:rnic_retransmits_per_transmitted_packet:"
                "ratio_rate5m{%s}" % DSEL, PORT_LEGEND)], "percentunit"),
            8, 8)
    lay.add(timeseries(
        "Local ACK timeouts",
        "Requester ACK timer expiries (local_ack_timeout_err, "
        "to_retransmits, retrans_timeout_events).",
        [target("device_port:rnic_ack_timeouts:rate5m{%s}" % DSEL,
                PORT_LEGEND)], "cps"), 8, 8)
    lay.add(timeseries(
        "Retries exceeded",
        "Queue pairs that exhausted their transport or RNR retries and went "
        "to the error state, by counter.",
        [target("device_port_counter:rnic_retries_exceeded:rate5m{%s} > 0"
                % DSEL, PORT_LEGEND + " {{counter}}")], "cps"), 8, 8)
    lay.add(timeseries(
        "Receive-buffer drops",
        "Packets dropped because no receive WQE was posted (out_of_buffer, "
        "rx_out_of_buffer, rx_drops).",
        [target("device_port:rnic_rx_buffer_drops:rate5m{%s}" % DSEL,
                PORT_LEGEND)], "pps"), 8, 8)

    lay.row("PFC, adapter discards and PCIe (roce collector)")
    lay.add(timeseries(
        "PFC pause frames",
        "Pause frames per priority: rx = the switch paused this port, tx = "
        "this NIC paused the switch. Only PFC-enabled priorities are listed.",
        [target("sum by (instance, netdev, priority, direction) (rate("
                "rnic_pfc_pause_frames_total{%s}[$__rate_interval]))" % DSEL,
                "{{instance}} {{netdev}} prio {{priority}} {{direction}}")],
        "pps"), 8, 8)
    lay.add(timeseries(
        "Time paused",
        "Share of time paused by PFC per priority (rate of pause seconds). "
        "rx above 25 % for 15m: alert RnicPfcPausedHigh.",
        [target("rate(rnic_pfc_pause_duration_seconds_total{%s}"
                "[$__rate_interval])" % DSEL,
                "{{instance}} {{netdev}} prio {{priority}} {{direction}}")],
        "percentunit"), 8, 8)
    lay.add(timeseries(
        "Pause storms",
        "Pause-storm warning and error events (error: the NIC stopped sending "
        "pause; alert RnicPfcPauseStorm).",
        [target("increase(rnic_pfc_pause_storm_warning_events_total{%s}"
                "[$__rate_interval]) > 0" % DSEL,
                "warning {{instance}} {{netdev}}"),
         target("increase(rnic_pfc_pause_storm_error_events_total{%s}"
                "[$__rate_interval]) > 0" % DSEL,
                "error {{instance}} {{netdev}}")], "short", draw="bars"),
            8, 8)
    lay.add(timeseries(
        "Adapter discards",
        "Packets the NIC dropped: at the physical port for lack of buffers "
        "(rx/tx_discards_phy), per priority (rx_prio*_discards), and for "
        "lack of a posted netdev receive buffer (rx_out_of_buffer).",
        [target("rate(rnic_phy_rx_discards_total{%s}[$__rate_interval])"
                % DSEL, "phy rx {{instance}} {{netdev}}"),
         target("rate(rnic_phy_tx_discards_total{%s}[$__rate_interval])"
                % DSEL, "phy tx {{instance}} {{netdev}}"),
         target("sum by (instance, netdev, priority) (rate("
                "rnic_rx_priority_discards_total{%s}[$__rate_interval]))"
                % DSEL, "prio {{priority}} {{instance}} {{netdev}}"),
         target("rate(rnic_rx_out_of_buffer_total{%s}[$__rate_interval])"
                % DSEL, "out of buffer {{instance}} {{netdev}}")], "pps"),
            12, 8)
    lay.add(timeseries(
        "PCIe back-pressure",
        "Share of each second outbound PCIe reads/writes were stalled for "
        "lack of credits, and PCIe buffer overflow drops (alert "
        "RnicPcieBackpressure).",
        [target("rnic_pcie_outbound_stalled_reads_ratio{%s}" % DSEL,
                "reads stalled {{instance}} {{netdev}}"),
         target("rnic_pcie_outbound_stalled_writes_ratio{%s}" % DSEL,
                "writes stalled {{instance}} {{netdev}}"),
         target("rate(rnic_pcie_outbound_buffer_overflow_packets_total{%s}"
                "[$__rate_interval])" % DSEL,
                "overflow pkts/s {{instance}} {{netdev}}")], "percentunit"),
            12, 8)
    lay.add(table(
        "PFC and ECN configuration",
        "Per priority: PFC enabled (dcbnl) and RoCE ECN enabled per role "
        "(np sends CNPs, rp reacts). A PFC priority needs both roles on "
        "(alert RnicEcnDisabledOnPfcPriority).",
        [target("rnic_pfc_enabled{%s}" % DSEL),
         target('sum by (instance, device, port, netdev, priority) '
                '(rnic_roce_ecn_enabled{%s,role="np"})' % DSEL),
         target('sum by (instance, device, port, netdev, priority) '
                '(rnic_roce_ecn_enabled{%s,role="rp"})' % DSEL)],
        "none",
        overrides=[column_override("Value #A", "none", display="PFC"),
                   column_override("Value #B", "none", display="ECN np"),
                   column_override("Value #C", "none", display="ECN rp")],
        exclude=["job"]), 12, 8)
    lay.add(table(
        "RoCE netdev settings",
        "MTU of the netdev, whether it allows a 4096-byte RoCE MTU, DCBX "
        "willing bit, and DSCP entries in the DCB APP table (mlx5: > 0 "
        "means trust dscp).",
        [target("rnic_netdev_mtu_bytes{%s}" % DSEL),
         target("rnic_roce_mtu_4096_capable{%s}" % DSEL),
         target("rnic_dcb_willing{%s}" % DSEL),
         target("rnic_dcb_app_dscp_mappings{%s}" % DSEL)],
        "none",
        overrides=[column_override("Value #A", "bytes", display="MTU"),
                   column_override("Value #B", "none",
                                   display="4096 RoCE MTU"),
                   column_override("Value #C", "none", display="DCBX willing"),
                   column_override("Value #D", "none",
                                   display="DSCP mappings")],
        exclude=["job"]), 12, 8)

    lay.row("Driver counters (raw)")
    lay.add(timeseries(
        "mlx5 adaptive retransmission",
        "roce_adp_retrans and roce_adp_retrans_to: retransmissions and "
        "timeouts of the adaptive retransmission timer. Not in the "
        "vendor-neutral sum (they overlap with local_ack_timeout_err).",
        [target("rate(rnic_hw_roce_adp_retrans_total{%s}[$__rate_interval])"
                % DSEL, "retrans " + PORT_LEGEND),
         target("rate(rnic_hw_roce_adp_retrans_to_total{%s}"
                "[$__rate_interval])" % DSEL, "timeout " + PORT_LEGEND)],
        "cps"), 8, 8)
    lay.add(timeseries(
        "mlx5 slow restart and ICRC errors",
        "roce_slow_restart (rate limited after a timeout) and "
        "rx_icrc_encapsulated (RoCE packets with a bad ICRC).",
        [target("rate(rnic_hw_roce_slow_restart_total{%s}[$__rate_interval])"
                % DSEL, "slow restart " + PORT_LEGEND),
         target("rate(rnic_hw_rx_icrc_encapsulated_total{%s}"
                "[$__rate_interval])" % DSEL, "icrc " + PORT_LEGEND)],
        "cps"), 8, 8)
    lay.add(timeseries(
        "Responder sequence errors",
        "Requests the responder saw out of sequence (a packet before them was "
        "lost) or twice (a retransmit of something it had): mlx5 "
        "out_of_sequence, rxe out_of_seq_request, duplicate_request.",
        [target("rate(rnic_hw_out_of_sequence_total{%s}[$__rate_interval])"
                % DSEL, "out_of_sequence " + PORT_LEGEND),
         target("rate(rnic_hw_out_of_seq_request_total{%s}"
                "[$__rate_interval])" % DSEL,
                "out_of_seq_request " + PORT_LEGEND),
         target("rate(rnic_hw_duplicate_request_total{%s}[$__rate_interval])"
                % DSEL, "duplicate_request " + PORT_LEGEND)], "cps"), 8, 8)
    lay.add(timeseries(
        "Transmit wait (PMA)",
        "port_xmit_wait: ticks the port had data to send but no credits / "
        "was paused. Rising with flat traffic means back-pressure.",
        [target("rate(rnic_port_transmit_wait_total{%s}[$__rate_interval])"
                % DSEL, PORT_LEGEND)], "cps"), 12, 8)
    lay.add(table(
        "Optional counters",
        "Optional hardware counters the driver offers (netlink STAT_GET_STATUS)"
        " and whether they are enabled. The exporter never enables them: "
        "`rdma statistic set link <dev>/<port> optional-counters ...`.",
        [target("rnic_optional_counter_info{%s}" % DSEL)], "none",
        exclude=["job", "Value"]), 24, 6)
    lay.add(timeseries(
        "RNR NAKs",
        "Receiver-not-ready NAKs received (mlx5 rnr_nak_retry_err; rxe "
        "rcvd_rnr_err): the peer had no receive WQE posted.",
        [target("rate(rnic_hw_rnr_nak_retry_err_total{%s}[$__rate_interval])"
                % DSEL, "rnr_nak_retry_err " + PORT_LEGEND),
         target("rate(rnic_hw_rcvd_rnr_err_total{%s}[$__rate_interval])"
                % DSEL, "rcvd_rnr_err " + PORT_LEGEND)], "cps"), 12, 8)
    return dashboard(
        "rnic-congestion", "RNIC / Congestion and transport errors",
        "ECN marks, CNPs, retransmits, timeouts, retry exhaustion and "
        "receive-buffer drops per port, across drivers; PFC, adapter "
        "discards, PCIe back-pressure and the PFC/ECN configuration of RoCE "
        "netdevs.", lay)


def probe_resources():
    lay = Layout()
    psel = DSEL + ',operation=~"$operation"'
    lay.row("Active probe")
    lay.add(state_timeline(
        "Probe success",
        "rnic_probe_success per port: 1 when the last probe round completed.",
        [target("rnic_probe_success{%s}" % DSEL, PORT_LEGEND)],
        [{"type": "value", "options": {
            "0": {"text": "failing", "color": "red", "index": 0},
            "1": {"text": "ok", "color": "green", "index": 1}}}]), 24, 6)
    lay.add(timeseries(
        "Median latency",
        "p50 of the probe's one-way latency per operation and size "
        "(histogram_quantile over 5m). Dashed: the one-day median used by "
        "RnicProbeLatencyHigh.",
        [target("device_port_operation:rnic_probe_latency_seconds:p50_rate5m"
                "{%s}" % psel,
                PORT_LEGEND + " {{operation}} {{size_bytes}}B"),
         target("device_port_operation:rnic_probe_latency_seconds:"
                "p50_rate5m_median1d{%s}" % psel,
                "1d median " + PORT_LEGEND + " {{operation}} {{size_bytes}}B")],
        "s"), 12, 9)
    lay.add(timeseries(
        "p99 latency",
        "p99 of the probe latency (histogram_quantile over 5m).",
        [target("device_port_operation:rnic_probe_latency_seconds:p99_rate5m"
                "{%s}" % psel,
                PORT_LEGEND + " {{operation}} {{size_bytes}}B")], "s"), 12, 9)
    lay.add(heatmap(
        "Latency distribution",
        "All selected probe latencies per bucket.",
        [target("sum by (le) (rate(rnic_probe_latency_seconds_bucket{%s}"
                "[$__rate_interval]))" % psel)], "s"), 12, 9)
    lay.add(timeseries(
        "Failed probe rounds",
        "Probe rounds per port that did not complete every operation.",
        [target("increase(rnic_probe_rounds_total{%s,result=\"failed\"}"
                "[$__rate_interval]) > 0" % DSEL, PORT_LEGEND)],
        "short", draw="bars"), 12, 9)
    lay.add(timeseries(
        "Probe errors",
        "Completion errors by status and timeouts of the probe.",
        [target("sum by (instance, device, port, status) (rate("
                "rnic_probe_completion_errors_total{%s}[$__rate_interval]))"
                % DSEL, PORT_LEGEND + " {{status}}"),
         target("sum by (instance, device, port) (rate("
                "rnic_probe_timeouts_total{%s}[$__rate_interval]))" % DSEL,
                PORT_LEGEND + " timeout")], "cps"), 12, 9)
    lay.add(timeseries(
        "Memory registration time",
        "p50 and p99 of ibv_reg_mr() time measured by the probe, per device "
        "and buffer size.",
        [target("histogram_quantile(0.5, sum by (le, instance, device, "
                "size_bytes) (rate(rnic_probe_mr_registration_seconds_bucket"
                "{%s}[$__rate_interval])))" % DSEL,
                "p50 {{instance}} {{device}} {{size_bytes}}B"),
         target("histogram_quantile(0.99, sum by (le, instance, device, "
                "size_bytes) (rate(rnic_probe_mr_registration_seconds_bucket"
                "{%s}[$__rate_interval])))" % DSEL,
                "p99 {{instance}} {{device}} {{size_bytes}}B")], "s"), 12, 8)
    lay.add(timeseries(
        "Async events",
        "Asynchronous events the probe's verbs context received, by event "
        "(cq_err is a CQ overrun of the probe's own CQ).",
        [target("sum by (instance, device, port, event) (increase("
                "rnic_async_events_total{%s}[$__rate_interval])) > 0" % DSEL,
                PORT_LEGEND + " {{event}}")], "short", draw="bars"), 12, 8)
    lay.add(timeseries(
        "Probe CPU and budget",
        "Share of one core the probe threads use, against their budget "
        "(probe.cpu_budget_percent), and the share of time rounds were held "
        "back to stay within it. Held back a lot: the device or host makes "
        "probing dear, and latency samples come less often than "
        "probe.interval.",
        [target("rate(rnic_probe_cpu_seconds_total{%s}[$__rate_interval])"
                % SEL, "{{instance}} used"),
         target("rnic_probe_cpu_budget_ratio{%s} > 0" % SEL,
                "{{instance}} budget", ref="B"),
         target("rate(rnic_probe_budget_delay_seconds_total{%s}"
                "[$__rate_interval])" % SEL, "{{instance}} held back",
                ref="C")], "percentunit"), 24, 7)

    lay.row("Completion queues")
    lay.add(timeseries(
        "CQ overruns",
        "CQ overruns per device: kernel log (all CQs on the host, mlx5) or "
        "the probe's async events (own CQs only) as a fallback.",
        [target("device:rnic_cq_overruns:rate5m{%s}" % DSEL,
                "{{instance}} {{device}}")], "cps"), 12, 8)
    lay.add(timeseries(
        "Kernel CQ errors by syndrome",
        "CQ error lines the driver logged (0x1 overrun, 0x2 access "
        "violation).",
        [target("sum by (instance, device, syndrome, reason) (increase("
                "rnic_kernel_cq_errors_total{%s}[$__rate_interval])) > 0"
                % DSEL, "{{instance}} {{device}} {{syndrome}} {{reason}}")],
        "short", draw="bars"), 12, 8)
    lay.row("Resources (RDMA netlink)")
    lay.add(timeseries(
        "Objects per device",
        "RDMA objects per device and kind (rdma resource show): qp, cq, mr, "
        "pd, ctx, srq, cm_id. Counts only objects visible in the exporter's "
        "PID namespace.",
        [target("rnic_resource_objects{%s}" % DSEL,
                "{{instance}} {{device}} {{resource}}")], "short"), 12, 8)
    lay.add(timeseries(
        "QPs by type and state",
        "Queue pairs per device by type (RC, UD, ...) and state (RTS, ERR, "
        "...). QPs piling up in ERR are failed connections nobody cleaned "
        "up.",
        [target("sum by (instance, device, qp_type, state) "
                "(rnic_resource_qps{%s})" % DSEL,
                "{{instance}} {{device}} {{qp_type}} {{state}}")], "short"),
            12, 8)
    lay.add(timeseries(
        "Pinned memory by process (top 10)",
        "Bytes registered in memory regions per command name (sum of MR "
        "lengths): memory the kernel cannot swap or move.",
        [target("topk(10, rnic_resource_mr_pinned_bytes{%s})" % DSEL,
                "{{instance}} {{device}} {{comm}}")], "bytes"), 12, 8)
    lay.add(timeseries(
        "CQ entries by process (top 10)",
        "Total CQ depth per command name; compare with the largest single "
        "CQ when chasing overruns.",
        [target("topk(10, rnic_resource_cq_entries{%s})" % DSEL,
                "total {{instance}} {{device}} {{comm}}"),
         target("topk(10, rnic_resource_cq_max_entries{%s})" % DSEL,
                "largest {{instance}} {{device}} {{comm}}")], "short"), 12, 8)
    lay.add(table(
        "Resources by process",
        "QPs, CQs, MRs, PDs and verbs contexts per command name and device.",
        [target("rnic_resource_comm_qps{%s}" % DSEL),
         target("rnic_resource_cqs{%s}" % DSEL),
         target("rnic_resource_mrs{%s}" % DSEL),
         target("rnic_resource_mr_pinned_bytes{%s}" % DSEL),
         target("rnic_resource_pds{%s}" % DSEL),
         target("rnic_resource_contexts{%s}" % DSEL)],
        "short",
        overrides=[
            column_override("Value #A", "short", display="QPs"),
            column_override("Value #B", "short", display="CQs"),
            column_override("Value #C", "short", display="MRs"),
            column_override("Value #D", "bytes", display="Pinned"),
            column_override("Value #E", "short", display="PDs"),
            column_override("Value #F", "short", display="Contexts"),
        ],
        exclude=["job"]), 24, 8)
    lay.add(timeseries(
        "Retransmit triggers by process (bound QP counters)",
        "Per-process sums of the RDMA counters bound to its QPs (netlink "
        "statistic, when QP counters are bound): mlx5 local_ack_timeout_err "
        "and packet_seq_err, rxe completer_retry_err. Already included in "
        "the port totals.",
        [target("sum by (instance, device, comm) (rate("
                "rnic_qp_counter_local_ack_timeout_err_total{%s}"
                "[$__rate_interval]))" % DSEL,
                "ack timeout {{instance}} {{device}} {{comm}}"),
         target("sum by (instance, device, comm) (rate("
                "rnic_qp_counter_packet_seq_err_total{%s}[$__rate_interval]))"
                % DSEL, "seq err {{instance}} {{device}} {{comm}}"),
         target("sum by (instance, device, comm) (rate("
                "rnic_qp_counter_completer_retry_err_total{%s}"
                "[$__rate_interval]))" % DSEL,
                "retry {{instance}} {{device}} {{comm}}")], "cps"), 24, 8)
    return dashboard(
        "rnic-probe-resources", "RNIC / Probe latency, CQs and resources",
        "Active probe latency and errors, completion-queue errors and the "
        "RDMA resources (QPs, CQs, MRs) each process holds.", lay)


def health():
    lay = Layout()
    lay.row("Configuration drift (expect collector)")
    lay.add(stat(
        "Failing checks",
        "Checks of the expect: section of --config.file that do not hold "
        "(alert RnicConfigDrift).",
        [target("count(rnic_expect_check_ok{%s} == 0) or vector(0)" % DSEL)],
        "none", thresholds=[(1, "orange")]), 4, 8)
    lay.add(table(
        "Drift by check",
        "One row per failing check: device, port, check and the expected "
        "value.",
        [target("rnic_expect_check_ok{%s} == 0" % DSEL)], "none",
        exclude=["job", "Value"]), 20, 8)

    lay.row("PCIe (pcie collector)")
    lay.add(table(
        "PCIe links",
        "Negotiated against maximum link speed (transfers per second per "
        "lane) and width of each RDMA PCI function; VFs name their PF "
        "(alert RnicPcieLinkDowntrained).",
        [target("rnic_pcie_link_speed_transfers_per_second{%s}" % DSEL),
         target("rnic_pcie_link_max_speed_transfers_per_second{%s}" % DSEL),
         target("rnic_pcie_link_width_lanes{%s}" % DSEL),
         target("rnic_pcie_link_max_width_lanes{%s}" % DSEL),
         target("rnic_pcie_link_downtrained{%s}" % DSEL)],
        "none",
        overrides=[column_override("Value #A", "short", display="speed (T/s)"),
                   column_override("Value #B", "short",
                                   display="max speed (T/s)"),
                   column_override("Value #C", "none", display="width"),
                   column_override("Value #D", "none", display="max width"),
                   column_override("Value #E", "none",
                                   display="downtrained")],
        exclude=["job"]), 24, 7)
    lay.add(timeseries(
        "AER errors",
        "PCIe Advanced Error Reporting errors per second by class and type "
        "(alerts RnicPcieFatalErrors, RnicPcieNonFatalErrors, "
        "RnicPcieCorrectableErrorsHigh).",
        [target("sum by (instance, device, class, error) (rate("
                "rnic_pcie_aer_errors_total{%s}[$__rate_interval])) > 0"
                % DSEL, "{{instance}} {{device}} {{class}} {{error}}")],
        "cps"), 24, 8)

    lay.row("Link stability (carrier collector)")
    lay.add(timeseries(
        "Carrier changes",
        "Carrier changes of the netdevs of RDMA ports; each flap is two "
        "(alert RnicNetdevCarrierFlapping).",
        [target("increase(rnic_netdev_carrier_changes_total{%s}"
                "[$__rate_interval])" % DSEL,
                "{{instance}} {{device}}/{{port}} {{netdev}}")],
        "short", draw="bars"), 24, 8)
    return dashboard(
        "rnic-health", "RNIC / Host health",
        "Below the RDMA counters: configuration drift against the expect: "
        "section, PCIe link training and AER errors, netdev link "
        "stability.", lay)
def link_optics():
    """FEC, standard PHY/MAC statistics and optics (ethtool collector)."""
    lay = Layout()
    ndsel = DSEL
    net_legend = "{{instance}} {{netdev}}"
    lay.row("FEC")
    lay.add(table(
        "FEC mode",
        "Active FEC mode per netdev (rnic_fec_active_mode_info): none, rs, "
        "baser, llrs. It must match the far end.",
        [target("rnic_fec_active_mode_info{%s}" % ndsel)], "none",
        exclude=["job", "Value"]), 8, 8)
    lay.add(timeseries(
        "Corrected FEC blocks",
        "Blocks the FEC corrected, per second (rnic_fec_corrected_blocks_total)."
        " Normal on PAM4 links; a rise over the link's own baseline means it "
        "degrades (alert RnicFecCorrectedRateHigh).",
        [target("rate(rnic_fec_corrected_blocks_total{%s}[$__rate_interval])"
                % ndsel, net_legend)], "cps"), 8, 8)
    lay.add(timeseries(
        "Uncorrectable FEC blocks",
        "Blocks the FEC could not correct, per second: lost frames "
        "(rnic_fec_uncorrectable_blocks_total).",
        [target("rate(rnic_fec_uncorrectable_blocks_total{%s}"
                "[$__rate_interval])" % ndsel, net_legend)], "cps"), 8, 8)
    lay.add(timeseries(
        "Corrected FEC blocks per lane",
        "Per-lane corrected blocks where the driver counts them "
        "(rnic_fec_lane_corrected_blocks_total): one lane rising points at "
        "one fibre or module lane.",
        [target("rate(rnic_fec_lane_corrected_blocks_total{%s}"
                "[$__rate_interval])" % ndsel,
                "{{instance}} {{netdev}} lane {{lane}}")], "cps"), 12, 8)
    lay.add(timeseries(
        "Symbol and FCS errors",
        "IEEE 802.3 SymbolErrorDuringCarrier and FrameCheckSequenceErrors "
        "from the standard statistics groups, per second.",
        [target("rate(rnic_ethtool_eth_phy_symbol_error_during_carrier_total"
                "{%s}[$__rate_interval])" % ndsel,
                "{{instance}} {{netdev}} symbol"),
         target("rate(rnic_ethtool_eth_mac_frame_check_sequence_errors_total"
                "{%s}[$__rate_interval])" % ndsel,
                "{{instance}} {{netdev}} fcs")], "cps"), 12, 8)

    lay.row("Frame sizes (rmon)")
    frame_size_help = (
        " per second by frame length in octets, stacked: one band per bucket "
        "the driver defines (rnic_ethtool_rmon_frame_size_packets_total, "
        "legend low-high, +Inf for the open last bucket; pick one $device "
        "for one netdev's stack). RoCE data frames land in the bucket of the "
        "RDMA path MTU (1024 or 4096 plus headers). A shift to the small "
        "buckets (0-64, 65-127) at the same byte rate means ACKs, CNPs or "
        "small messages dominate: more packets per byte, so the NIC and the "
        "CPUs reach their packet rate before the link's bandwidth. A shift "
        "to the buckets above 1518 means jumbo frames: frames there on a "
        "netdev with MTU 1500 (a peer sending frames this side drops), or "
        "none where MTU 9000 is configured (a hop limiting the path MTU), "
        "point at an MTU mismatch. A driver without the histogram, or "
        "without this direction's buckets (mlx5 counts RX only), shows no "
        "series.")
    for direction, verb in (("rx", "Received"), ("tx", "Transmitted")):
        lay.add(timeseries(
            "%s frame sizes" % verb,
            verb + " frames" + frame_size_help,
            [target("rate(rnic_ethtool_rmon_frame_size_packets_total{%s,"
                    'direction="%s"}[$__rate_interval])' % (ndsel, direction),
                    "{{instance}} {{netdev}} {{low}}-{{high}}")],
            "pps", stack=True), 12, 8)

    lay.row("Optics")
    lay.add(table(
        "Modules",
        "Pluggable modules (rnic_optic_info): type, management spec, vendor, "
        "part number, revision, serial.",
        [target("rnic_optic_info{%s}" % ndsel)], "none",
        exclude=["job", "Value"]), 24, 7)
    lay.add(timeseries(
        "Module temperature",
        "rnic_optic_temperature_celsius, with each module's own high-warning "
        "threshold (dashed in the legend as 'warn').",
        [target("rnic_optic_temperature_celsius{%s}" % ndsel, net_legend),
         target("rnic_optic_temperature_threshold_celsius{%s,"
                'level="high_warning"}' % ndsel,
                "{{instance}} {{netdev}} warn")], "celsius"), 12, 8)
    lay.add(timeseries(
        "Supply voltage",
        "rnic_optic_supply_voltage_volts (3.3 V nominal).",
        [target("rnic_optic_supply_voltage_volts{%s}" % ndsel, net_legend)],
        "volt"), 12, 8)
    lay.add(timeseries(
        "Receive power per lane",
        "rnic_optic_rx_power_watts per lane, with the module's low-warning "
        "threshold (alert RnicOpticRxPowerLow).",
        [target("rnic_optic_rx_power_watts{%s}" % ndsel,
                "{{instance}} {{netdev}} lane {{lane}}"),
         target("rnic_optic_rx_power_threshold_watts{%s,"
                'level="low_warning"}' % ndsel,
                "{{instance}} {{netdev}} low warn")], "watt"), 12, 8)
    lay.add(timeseries(
        "Transmit power per lane",
        "rnic_optic_tx_power_watts per lane.",
        [target("rnic_optic_tx_power_watts{%s}" % ndsel,
                "{{instance}} {{netdev}} lane {{lane}}")], "watt"), 12, 8)
    lay.add(timeseries(
        "Laser bias per lane",
        "rnic_optic_tx_bias_amperes per lane: rising bias at constant power "
        "is an ageing laser.",
        [target("rnic_optic_tx_bias_amperes{%s}" % ndsel,
                "{{instance}} {{netdev}} lane {{lane}}")], "amp"), 12, 8)
    lay.add(table(
        "Raised module flags",
        "Alarm and warning flags the module latched since the previous read "
        "(rnic_optic_alarm_flag == 1).",
        [target("rnic_optic_alarm_flag{%s} == 1" % ndsel)], "none",
        exclude=["job", "Value"]), 12, 8)
    lay.row("PCIe")
    lay.add(timeseries(
        "PCIe bandwidth of the RNIC's IIO stack",
        "Bytes per second through the Intel IIO stack (root complex) of each "
        "RDMA device, from the uncore free-running counters "
        "(rnic_pcie_iio_bytes_total; perf collector, no configuration). in: "
        "device to host; out: host to device. Devices sharing a stack show "
        "it once.",
        [target("rate(rnic_pcie_iio_bytes_total{%s}[$__rate_interval])"
                % ndsel, "{{instance}} {{device}} {{direction}}")],
        "Bps"), 24, 8)
    return dashboard(
        "rnic-link-optics", "RNIC / Link FEC and optics",
        "Below the RDMA counters: FEC corrections, PHY/MAC errors and the "
        "modules' temperature, voltage and optical power against their own "
        "thresholds.", lay)


def add_operation_variable(dash):
    query = ('label_values(rnic_probe_latency_seconds_count{%s}, operation)'
             % DSEL)
    dash["templating"]["list"].append({
        "name": "operation",
        "label": "operation",
        "type": "query",
        "datasource": DATASOURCE,
        "definition": query,
        "query": {"query": query, "refId": "operation"},
        "refresh": 2,
        "multi": True,
        "includeAll": True,
        "allValue": ".+",
        "current": {},
        "options": [],
        "regex": "",
        "sort": 1,
        "hide": 0,
    })
    return dash


def matrix(title, description, expr, unit, thresholds):
    """Instant query pivoted to source (instance device) x peer."""
    t = target(expr, "", instant=True, fmt="table")
    t.update({"range": False})
    steps = [{"color": "green", "value": None}]
    for value, color in thresholds:
        steps.append({"color": color, "value": value})
    return {
        "type": "table",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": refs([t]),
        "fieldConfig": {
            "defaults": {
                "unit": unit,
                "thresholds": {"mode": "absolute", "steps": steps},
                "custom": {"align": "auto",
                           "cellOptions": {"type": "color-background"}},
            },
            "overrides": [{
                "matcher": {"id": "byName", "options": "source\\peer"},
                "properties": [{"id": "custom.cellOptions",
                                "value": {"type": "auto"}}],
            }],
        },
        "transformations": [
            {"id": "groupingToMatrix",
             "options": {"columnField": "peer", "rowField": "source",
                         "valueField": "Value"}},
        ],
        "options": {"showHeader": True, "cellHeight": "sm",
                    "footer": {"show": False}},
    }


def fabric():
    lay = Layout()
    fsel = SEL + ',peer=~"$peer"'
    source = ('label_join(%s, "source", " ", "instance", "device", '
              '"remote_device")')
    lay.row("Source x peer")
    lay.add(matrix(
        "p99 RTT",
        "Fabric probe RTT p99 over 5m (worst operation) from each source "
        "(instance, local device, peer device) to each peer host. Red: "
        "above 1 ms.",
        source % ("max without (operation) (device_peer_operation:"
                  "rnic_fabric_rtt_seconds:p99_rate5m{%s})" % fsel),
        "s", [(0.0002, "orange"), (0.001, "red")]), 12, 10)
    lay.add(matrix(
        "Loss",
        "Share of the probes sent on a connection that timed out or failed "
        "over 5m (device_peer:rnic_fabric_probe_loss:ratio_rate5m).",
        source % ("device_peer:rnic_fabric_probe_loss:ratio_rate5m{%s}"
                  % fsel),
        "percentunit", [(0.001, "orange"), (0.01, "red")]), 12, 10)
    lay.row("Pairs")
    lay.add(state_timeline(
        "Peer up",
        "rnic_fabric_peer_up: 1 when the pair is connected and its last "
        "round completed every operation.",
        [target("rnic_fabric_peer_up{%s}" % fsel,
                "{{instance}} {{device}} > {{peer}} {{remote_device}}")],
        [{"type": "value", "options": {
            "0": {"text": "down", "color": "red", "index": 0},
            "1": {"text": "up", "color": "green", "index": 1}}}]), 24, 8)
    lay.add(timeseries(
        "p50 RTT",
        "Median round trip per pair and operation; dashed in the alert: the "
        "one-day median of the p99.",
        [target("device_peer_operation:rnic_fabric_rtt_seconds:p50_rate5m"
                "{%s}" % fsel,
                "{{instance}} {{device}} > {{peer}} {{remote_device}} "
                "{{operation}}")], "s"), 12, 9)
    lay.add(timeseries(
        "p99 RTT and baseline",
        "p99 per pair and operation, and its one-day median that "
        "RnicFabricRttHigh compares against.",
        [target("device_peer_operation:rnic_fabric_rtt_seconds:p99_rate5m"
                "{%s}" % fsel,
                "{{instance}} {{device}} > {{peer}} {{remote_device}} "
                "{{operation}}"),
         target("device_peer_operation:rnic_fabric_rtt_seconds:"
                "p99_rate5m_median1d{%s}" % fsel,
                "1d {{instance}} {{device}} > {{peer}} {{remote_device}} "
                "{{operation}}")], "s"), 12, 9)
    lay.add(timeseries(
        "Failed probes",
        "Probes by failing result: timeout, completion_error, not_connected.",
        [target('sum by (instance, device, peer, remote_device, result) '
                '(rate(rnic_fabric_probes_total{%s,result!="ok"}'
                '[$__rate_interval]))' % fsel,
                "{{instance}} {{device}} > {{peer}} {{remote_device}} "
                "{{result}}")], "ops"), 12, 8)
    lay.add(timeseries(
        "Connect failures and reconnects",
        "Failed connection attempts by rdma_cm event, and reconnects.",
        [target("sum by (instance, device, peer, event) (rate("
                "rnic_fabric_connect_failures_total{%s}[$__rate_interval]))"
                % fsel, "{{instance}} {{device}} > {{peer}} {{event}}"),
         target("sum by (instance, device, peer) (rate("
                "rnic_fabric_reconnects_total{%s}[$__rate_interval]))"
                % fsel, "reconnect {{instance}} {{device}} > {{peer}}")],
        "ops"), 12, 8)
    lay.row("Responder and cost")
    lay.add(timeseries(
        "Responder",
        "Connections the responder holds, and refusals by reason.",
        [target("rnic_fabric_responder_connections{%s}" % SEL,
                "connections {{instance}} {{device}}"),
         target("sum by (instance, device, reason) (rate("
                "rnic_fabric_responder_refused_total{%s}[$__rate_interval]))"
                % SEL, "refused {{instance}} {{device}} {{reason}}")],
        "short"), 12, 8)
    lay.add(timeseries(
        "Probe CPU",
        "CPU share used by the fabric probe threads, and time rounds were "
        "held back by the CPU budget.",
        [target("rate(rnic_fabric_cpu_seconds_total{%s}[$__rate_interval])"
                % SEL, "cpu {{instance}}"),
         target("rate(rnic_fabric_budget_delay_seconds_total{%s}"
                "[$__rate_interval])" % SEL, "held back {{instance}}")],
        "percentunit"), 12, 8)
    dash = dashboard(
        "rnic-fabric", "RNIC / Fabric",
        "Fabric probe (collector fabric): RC round-trip time and loss "
        "between hosts, as a source x peer matrix and per pair.", lay)
    query = 'label_values(rnic_fabric_peer_up{%s}, peer)' % SEL
    dash["templating"]["list"].append({
        "name": "peer",
        "label": "peer",
        "type": "query",
        "datasource": DATASOURCE,
        "definition": query,
        "query": {"query": query, "refId": "peer"},
        "refresh": 2,
        "multi": True,
        "includeAll": True,
        "allValue": ".+",
        "current": {},
        "options": [],
        "regex": "",
        "sort": 1,
        "hide": 0,
    })
    return dash


DASHBOARDS = {
    "rnic-overview.json": overview,
    "rnic-congestion.json": congestion,
    "rnic-health.json": health,
    "rnic-probe-resources.json": lambda: add_operation_variable(
        probe_resources()),
    "rnic-link-optics.json": link_optics,
    "rnic-fabric.json": fabric,
}


def render(build):
    return json.dumps(build(), indent=2, sort_keys=True) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if a committed JSON file is out of date")
    parser.add_argument("--out", default=HERE, help="output directory")
    args = parser.parse_args()
    stale = []
    for name, build in DASHBOARDS.items():
        path = os.path.join(args.out, name)
        text = render(build)
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("out of date (run dashboards/grafana/generate.py): "
              + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
