#!/usr/bin/env python3
"""The recording rules on what the real exporter emits for the fixture devices.

Runs rnic_exporter on tests/fixtures/sys (sysfs collector), takes every
sample of one scrape as a promtool input series (gauges flat, counters rising
by 60 per minute, so every counter's rate is exactly 1/s), evaluates the
vendor-neutral recording rules with `promtool test rules`, and compares, per
recorded series, which device/port it covers and with what value against
EXPECTED below. The values follow from the mapping: a sum of three counters
is 3, a ratio of two counters is 1, bytes come from PMA when the device has
PMA counters, and so on.

So a renamed exporter family, a driver counter a rule misspells, or an "or"
chain that double counts fails here.

The same run evaluates every Grafana panel and variable query (variables
substituted as lint_dashboards.py does): each query whose metrics all exist
in the scrape or in a recorded series with data must return data, apart from
MAY_BE_EMPTY. Needs: RNIC_EXPORTER, RNIC_SOURCE_DIR,
promtool.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("RNIC_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SRC, "tests", "e2e"))
from rnic_e2e import Exporter, parse_samples  # noqa: E402
sys.path.insert(0, HERE)
import lint_dashboards  # noqa: E402

BIN = os.environ.get("RNIC_EXPORTER", os.path.join(SRC, "build", "exporter",
                                                   "rnic_exporter"))
PROMTOOL = os.environ.get("PROMTOOL", "promtool")

# recorded series -> {"device/port": value at 10m}. Devices: mlx5_0 (RoCE,
# PMA + hw counters), mlx5_1 and mlx4_0 (PMA only), hfi1_0 (Omni-Path, PMA +
# hw), i40iw0 (iWARP, PMA "N/A", ip4/ip6/tcp hw counters), bnxt_re0, efa
# rdmap0s6, rxe0/rxe1 (hw counters only).
PMA = {"mlx5_0/1": 1, "mlx5_1/1": 1, "mlx4_0/1": 1, "mlx4_0/2": 1,
       "hfi1_0/1": 1}
EXPECTED = {
    "device_port:rnic_transmitted_bytes:rate5m": {
        **PMA, "bnxt_re0/1": 1, "rdmap0s6/1": 1, "i40iw0/1": 2},
    "device_port:rnic_received_bytes:rate5m": {
        **PMA, "bnxt_re0/1": 1, "rdmap0s6/1": 1, "i40iw0/1": 2},
    "device_port:rnic_transmitted_packets:rate5m": {
        **PMA, "bnxt_re0/1": 1, "rdmap0s6/1": 1, "i40iw0/1": 2,
        "rxe0/1": 1, "rxe1/1": 1},
    "device_port:rnic_received_packets:rate5m": {
        **PMA, "bnxt_re0/1": 1, "rdmap0s6/1": 1, "i40iw0/1": 2,
        "rxe0/1": 1, "rxe1/1": 1},
    "device_port:rnic_ecn_marked_packets:rate5m": {
        "mlx5_0/1": 1, "bnxt_re0/1": 1},
    "device_port:rnic_cnp_sent:rate5m": {"mlx5_0/1": 1, "bnxt_re0/1": 1},
    "device_port:rnic_cnp_handled:rate5m": {"mlx5_0/1": 1, "bnxt_re0/1": 1},
    "device_port:rnic_cnp_ignored:rate5m": {"mlx5_0/1": 1},
    # mlx5: local_ack_timeout_err + packet_seq_err + implied_nak_seq_err;
    # bnxt_re: to_retransmits + seq_err_naks_rcvd + missing_resp;
    # hfi1: RcTimeOut + RcSeqNak; efa: retrans_pkts; i40iw: tcpRetransSegs;
    # rxe: completer_retry_err.
    "device_port:rnic_retransmits:rate5m": {
        "mlx5_0/1": 3, "bnxt_re0/1": 3, "hfi1_0/1": 2, "rdmap0s6/1": 1,
        "i40iw0/1": 1, "rxe0/1": 1, "rxe1/1": 1},
    "device_port:rnic_ack_timeouts:rate5m": {
        "mlx5_0/1": 1, "bnxt_re0/1": 1, "rdmap0s6/1": 1, "hfi1_0/1": 1},
    "device_port:rnic_retries_exceeded:rate5m": {
        "mlx5_0/1": 2, "bnxt_re0/1": 1, "rdmap0s6/1": 1, "rxe0/1": 2,
        "rxe1/1": 2},
    "device_port:rnic_rx_buffer_drops:rate5m": {
        "mlx5_0/1": 1, "bnxt_re0/1": 1, "rdmap0s6/1": 1},
    # 1 retransmit trigger per packet sent... times the number of counters.
    "device_port:rnic_retransmits_per_transmitted_packet:ratio_rate5m": {
        "mlx5_0/1": 3, "bnxt_re0/1": 3, "hfi1_0/1": 2, "rdmap0s6/1": 1,
        "i40iw0/1": 0.5, "rxe0/1": 1, "rxe1/1": 1},
    "device_port:rnic_ecn_marked_per_received_packet:ratio_rate5m": {
        "mlx5_0/1": 1, "bnxt_re0/1": 1},
}
EVAL = "10m"
# Panel queries that filter and may rightly be empty on the fixtures.
MAY_BE_EMPTY = {
    # No PMA counter of the fixtures is at its maximum... unless one is:
    # then this panel shows it, which is fine either way.
    "rnic-overview.json panel 'Saturated counters' target A",
}


def dashboard_queries():
    import glob
    out = []
    # RNIC_FIXTURE_DASHBOARDS: another directory (the self-test's empty one).
    where = os.environ.get("RNIC_FIXTURE_DASHBOARDS",
                           os.path.join(SRC, "dashboards", "grafana"))
    for path in sorted(glob.glob(os.path.join(where, "*.json"))):
        exprs = []
        lint_dashboards.lint_dashboard(path, json.load(open(path)),
                                       lint_dashboards.Findings(), exprs, {})
        out += exprs
    return out


def series_string(name, labels):
    def esc(v):
        return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    inner = ",".join(f'{k}="{esc(v)}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


def main():
    if not os.path.exists(BIN):
        print(f"FAIL: no exporter binary at {BIN}")
        return 1
    args = ["--path.sysfs=" + os.path.join(SRC, "tests", "fixtures", "sys"),
            "--path.devkmsg=/dev/null",
            "--collector.disable-defaults", "--collector.sysfs"]
    with Exporter(BIN, args) as exp:
        text = exp.metrics_text()
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    inputs = []
    for name, labels, value in parse_samples(text):
        if not name.startswith("rnic_") or not math.isfinite(value):
            continue
        labels = dict(labels, job="rnic", instance="fixture")
        if types.get(name) == "counter":
            values = f"{value:.17g}+60x15"
        else:
            values = f"{value:.17g}x15"
        inputs.append({"series": series_string(name, labels),
                       "values": values})

    tests = [{"expr": name, "eval_time": EVAL, "exp_samples": []}
             for name in EXPECTED]
    # Dashboard queries, told apart by their evaluation time (10m + i s).
    queries = dashboard_queries()
    for i, (_, expr) in enumerate(queries):
        tests.append({"expr": lint_dashboards.substitute(expr),
                      "eval_time": f"{600 + i + 1}s", "exp_samples": []})
    doc = {
        "rule_files": [os.path.join(SRC, "dashboards", "rules",
                                    "rnic_rules.yaml")],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": inputs,
                   "promql_expr_test": tests}],
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fixture_test.yaml")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)  # JSON is YAML
        proc = subprocess.run([PROMTOOL, "test", "rules", path],
                              capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    # Every non-empty result "fails" against exp_samples: [] and promtool
    # prints what it got; an empty result passes and prints nothing.
    got = {name: {} for name in EXPECTED}
    for m in re.finditer(r'expr: "([^"]+)", time: [^\n]*\n\s*exp:[^\n]*\n\s*got: ([^\n]*)', out):
        name, got_line = m.group(1), m.group(2)
        for lm in re.finditer(r"\{([^}]*)\} (\S+)", got_line):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', lm.group(1)))
            key = f"{labels.get('device')}/{labels.get('port')}"
            got.setdefault(name, {})[key] = float(lm.group(2).rstrip(","))
    if "could not" in out or "error" in out.lower() and not got:
        print(out)
        return 1

    # Which dashboard queries returned data: promtool prints
    # `expr: "...", time: <t>,` then exp/got for each non-empty one.
    nonempty_times = set(re.findall(r"time: ([0-9hms]+),\s*\n\s*exp:[^\n]*\n\s*got: \{", out))
    present = {name for name, _, _ in parse_samples(text)}
    present |= {re.sub(r"_(bucket|sum|count)$", "", n) for n in present}
    present |= {name for name, have in got.items() if have}
    recorded = {n for kind, n, _ in lint_dashboards.read_rule_exprs(
        os.path.join(SRC, "dashboards", "rules", "rnic_rules.yaml"))
        if kind == "record"}

    failures = 0
    checked = 0
    for i, (where, expr) in enumerate(queries):
        names = lint_dashboards.metric_names(expr)
        if not names or not all(
                n in present or re.sub(r"_(bucket|sum|count)$", "", n) in present
                for n in names):
            continue  # reads metrics the fixture scrape does not have
        if any(n in recorded and n not in present for n in names):
            continue
        checked += 1
        seconds = 600 + i + 1
        t = f"{seconds // 60}m{seconds % 60}s" if seconds % 60 else f"{seconds // 60}m"
        if t not in nonempty_times and where not in MAY_BE_EMPTY:
            print(f"no data: {where}: {expr}")
            failures += 1
    print(f"fixture dashboards: {checked} of {len(queries)} queries read "
          "fixture metrics and were checked for data")
    # None checked means the check did nothing (no dashboards found, the
    # lint's query extraction or promtool's output format changed): a
    # failure, not a pass.
    if checked == 0:
        print("no dashboard query was checked")
        failures += 1

    for name, want in EXPECTED.items():
        have = got.get(name, {})
        for key in sorted(set(want) | set(have)):
            if key not in have:
                print(f"{name}: missing {key} (want {want[key]})")
                failures += 1
            elif key not in want:
                print(f"{name}: unexpected {key} = {have[key]}")
                failures += 1
            elif not math.isclose(have[key], want[key], rel_tol=1e-9):
                print(f"{name}: {key} = {have[key]}, want {want[key]}")
                failures += 1
    print(f"fixture rules: {len(inputs)} input series, "
          f"{len(EXPECTED)} recorded series checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
