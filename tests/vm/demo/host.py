"""The demo's host side: prints where to look, logs every alert as it goes
pending, fires and resolves, and ends the demo at its deadline."""
import time
import urllib.parse

import rnicvm

QUERIES = [
    ("traffic", 'sum by (vm, device) (rate(rnic_port_data_received_bytes_total[10s]))'),
    ("retransmits", 'device_port:rnic_retransmits:rate5m'),
    ("probe p50", 'histogram_quantile(0.5, sum by (vm, device, operation, le) '
                  '(rate(rnic_probe_latency_seconds_bucket[10s])))'),
    ("port state", 'rnic_port_state'),
    ("fabric RTT p50", 'histogram_quantile(0.5, sum by (vm, device, peer, le) '
                       '(rate(rnic_fabric_rtt_seconds_bucket[10s])))'),
]


def run():
    prom = rnicvm.Prometheus()
    for vm in ("server", "client"):
        rnicvm.wait_guest(f"{vm}-up", timeout=300)
    prom.wait_up(count=2, timeout=60)
    rnicvm.signal_guest("demo-go")
    rnicvm.log(f"Prometheus (shipped rules, time compressed 30x): {prom.url}")
    rnicvm.log(f"  alerts: {prom.url}/alerts")
    for name, q in QUERIES:
        rnicvm.log(f"  {name}: {prom.url}/graph?g0.expr={urllib.parse.quote(q)}"
                   "&g0.tab=0&g0.range_input=15m")
    for vm in ("server", "client"):
        rnicvm.log(f"  exporter {vm}: {rnicvm.exporter_url(vm)}/metrics")
    rnicvm.log("Grafana: import dashboards/grafana/*.json with this Prometheus as data source")
    states = {}
    end = rnicvm.deadline() - 60
    while time.time() < end:
        now = {}
        for a in prom.alerts():
            lab = a["labels"]
            key = (lab["alertname"], lab.get("vm", ""), lab.get("device", ""), lab.get("port", ""))
            now[key] = a["state"]
        for key in sorted(set(states) | set(now)):
            if states.get(key) != now.get(key):
                rnicvm.log(f"alert {key[0]} {'/'.join(k for k in key[1:] if k)}: "
                           f"{now.get(key, 'resolved')}")
        states = now
        time.sleep(2)
    rnicvm.signal_guest("demo-stop")


rnicvm.main(run)
