"""Shipped rules and dashboard queries on real rxe data, via Prometheus."""
import json
import re
import os
import subprocess
import sys

import rnicvm

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                    "..", ".."))
PORT = 'vm="vm0",device="rxe0",port="1"'


def dashboard_queries():
    """Every panel/variable query, variables substituted (lint_dashboards)."""
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                       f"rnicvm_queries_{os.getpid()}.json")
    subprocess.run([sys.executable,
                    os.path.join(REPO, "tests", "dashboards", "lint_dashboards.py"),
                    "--repo", REPO, "--emit-queries", out],
                   capture_output=True, check=False)
    with open(out) as f:
        queries = json.load(f)
    os.unlink(out)
    return queries


COMPARISON = re.compile(r"[<>]|[=!]=")
NAME = re.compile(r"\b([a-z_:]*rnic_[a-z0-9_:]+)\s*[{\[(]?")


def must_show_data(prom, expr):
    """True when `expr` has no comparison and every series name in it
    (recorded or raw) has series in Prometheus."""
    if COMPARISON.search(re.sub(r'"[^"]*"', '""', expr)):
        return False
    names = {m.group(1) for m in NAME.finditer(expr)}
    return bool(names) and all(
        prom.query(f'count({{__name__="{n}"}})') for n in names)


def run():
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("exporter-up", timeout=150)
    prom.wait_up(timeout=30)
    prom.wait_scrapes(3)
    rnicvm.signal_guest("baseline")
    rnicvm.wait_guest("traffic-done", timeout=120)
    prom.wait_scrapes(3)

    # rxe counts packets, not bytes: the packet views carry the traffic.
    for name in ("device_port:rnic_transmitted_packets:rate5m",
                 "device_port:rnic_received_packets:rate5m"):
        v = prom.wait_value(f"{name}{{{PORT}}}", lambda v: v > 0, timeout=30)
        rnicvm.log(f"{name} = {v:g}/s")
    # rxe's retransmit trigger and retry-exhaustion counters feed the
    # vendor-neutral series (0 on a clean loopback, but present).
    for expr in (f"device_port:rnic_retransmits:rate5m{{{PORT}}}",
                 f'device_port_counter:rnic_retries_exceeded:rate5m{{{PORT},counter="retry_exceeded_err"}}',
                 f"device_port:rnic_retransmits_per_transmitted_packet:ratio_rate5m{{{PORT}}}"):
        v = prom.wait_value(expr, lambda v: v >= 0, timeout=30)
        rnicvm.log(f"{expr} = {v:g}")

    # Every rule group evaluates without error on real series (e.g. no
    # "vector cannot contain metrics with the same labelset").
    groups = prom._api("rules")["groups"]
    bad = [(g["name"], r.get("name"), r.get("lastError"))
           for g in groups for r in g["rules"] if r.get("health") != "ok"]
    rules = sum(len(g["rules"]) for g in groups)
    if bad:
        raise rnicvm.CheckFailed(f"rules not healthy: {bad}")
    rnicvm.log(f"{len(groups)} rule groups, {rules} rules healthy")

    # A healthy loopback run fires none of the shipped alerts.
    firing = [a["labels"]["alertname"] for a in prom.alerts()
              if a["state"] == "firing" and a["labels"]["alertname"].startswith("Rnic")]
    if firing:
        raise rnicvm.CheckFailed(f"alerts firing on a healthy VM: {firing}")

    # Every dashboard query runs on the real Prometheus. One that only
    # selects, rates or aggregates series this VM serves must show data: an
    # empty panel there is a wrong name, label or selector. Queries with a
    # comparison (a filter that is empty while healthy) or on series the VM
    # does not have (driver counters rxe lacks, the probe, perf) are only
    # run.
    for expr in ('rnic_port_state{vm="vm0",device="rxe0"}',
                 'rnic_port_info{vm="vm0",device="rxe0"}',
                 'rnic_resource_objects{vm="vm0",device="rxe0"}'):
        prom.wait_present(expr, timeout=10)
    with_data, must, empty = 0, 0, []
    queries = dashboard_queries()
    for q in queries:
        result = prom.query(q["expr"])  # raises on a PromQL error
        with_data += bool(result)
        if must_show_data(prom, q["expr"]):
            must += 1
            if not result:
                empty.append(q["expr"])
    if empty:
        raise rnicvm.CheckFailed(
            f"{len(empty)} dashboard queries on series the VM serves are empty: {empty}")
    if must < 20:
        raise rnicvm.CheckFailed(f"only {must} queries were expected to show data")
    rnicvm.log(f"{len(queries)} dashboard queries ran, {with_data} returned data, "
               f"all {must} on series the VM serves")


rnicvm.main(run)
