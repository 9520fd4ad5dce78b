#!/usr/bin/env python3
"""Writes dashboards/tests/alerts_fabric_fleet_test.yaml: promtool cases of
the fabric suspect alerts on a synthetic fleet of 4 groups (ToRs a-d) of 3
hosts, one fault each: a host, a ToR's uplinks, the path between two groups,
a single bad pair (which must name nothing), and a ToR seen through a
partial mesh's per-group counters.

  fabric_alert_cases.py          write the file
  fabric_alert_cases.py --check  exit 1 when the file differs (ctest)
"""
import os
import sys

SRC = os.environ.get("RNIC_SOURCE_DIR",
                     os.path.dirname(os.path.dirname(os.path.dirname(
                         os.path.abspath(__file__)))))
OUT = os.path.join(SRC, "dashboards", "tests", "alerts_fabric_fleet_test.yaml")
GROUPS = "abcd"
HOSTS = [g + str(i) for g in GROUPS for i in (1, 2, 3)]
RUNBOOK = ("https://github.com/rnic-exporter/rnic_exporter/blob/main/"
           "dashboards/RUNBOOK.md#")
ALERTS = ("RnicFabricSuspectHost", "RnicFabricSuspectTor",
          "RnicFabricSuspectPath")
# 10 probes a second for 30 minutes, sampled every minute.
GOOD = "0+600x30"
NONE = "0x30"


def group(host):
    return host[0]


def series(name, labels, values):
    text = ",".join('%s="%s"' % kv for kv in labels)
    return "      - series: '%s{%s}'\n        values: '%s'\n" % (
        name, text, values)


def fleet(bad, partial=False):
    """Input series: every host probes every other; `bad(src, dst)` says
    which pairs fail. `partial`: pairs to other groups count per group, as
    the exporter does above fabric.mesh.max_peers."""
    out = ""
    for src in HOSTS:
        inst = [("job", "rnic"), ("instance", src + ":9709")]
        out += series("rnic_fabric_mesh_info",
                      inst + [("host", src), ("group", group(src))], "1x30")
        per_group = {}
        for dst in HOSTS:
            if dst == src:
                continue
            if partial and group(dst) != group(src):
                g = per_group.setdefault(group(dst), [0, 0])
                g[1 if bad(src, dst) else 0] += 1
                continue
            out += series("rnic_fabric_peer_group_info",
                          inst + [("peer", dst), ("group", group(dst))],
                          "1x30")
            pair = inst + [("device", "mlx5_0"), ("peer", dst),
                           ("remote_device", "mlx5_0"), ("operation", "send")]
            failed = bad(src, dst)
            out += series("rnic_fabric_probes_total",
                          pair + [("result", "ok")], NONE if failed else GOOD)
            if failed:
                out += series("rnic_fabric_probes_total",
                              pair + [("result", "timeout")], GOOD)
        for g, (ok, failed) in sorted(per_group.items()):
            for result, n in (("ok", ok), ("timeout", failed)):
                if n:
                    out += series("rnic_fabric_group_probes_total",
                                  inst + [("device", "mlx5_0"), ("group", g),
                                          ("result", result)],
                                  "0+%dx30" % (600 * n))
    return out


def expected(alert, fired):
    """alert_rule_test entries at 20m: `fired` lists (labels, description)."""
    out = "      - eval_time: 20m\n        alertname: %s\n" % alert
    if not fired:
        return out + "        exp_alerts: []\n"
    out += "        exp_alerts:\n"
    summary = {
        "RnicFabricSuspectHost":
            "A host is the common element of failing fabric probes.",
        "RnicFabricSuspectTor":
            "A ToR (group) is the common element of failing fabric probes.",
        "RnicFabricSuspectPath":
            "The path between two groups is the common element of failing "
            "fabric probes.",
    }[alert]
    for labels, description in fired:
        out += "          - exp_labels:\n              severity: warning\n"
        for k, v in labels:
            out += "              %s: %s\n" % (k, v)
        out += ("            exp_annotations:\n"
                "              summary: %s\n"
                "              description: >-\n                %s\n"
                "              runbook_url: %s%s\n"
                % (summary, description, RUNBOOK, alert.lower()))
    return out


def case(name, bad, fired, partial=False, samples=()):
    """`samples`: (recorded series selector, labels, value) checked at 20m."""
    out = "  - name: %s\n    interval: 1m\n    input_series:\n" % name
    out += fleet(bad, partial)
    out += "    alert_rule_test:\n"
    for alert in ALERTS:
        out += expected(alert, fired.get(alert, []))
    if samples:
        out += "    promql_expr_test:\n"
    for expr, labels, value in samples:
        # Rounded: rate() over these counters is exact only to the last bit.
        out += ("      - expr: 'round(%s, 0.001)'\n        eval_time: 20m\n"
                "        exp_samples:\n"
                "          - labels: '%s'\n            value: %s\n"
                % (expr, labels[labels.index("{"):], value))
    return out


def host_desc(n, peer, grp):
    return ("%d hosts fail to probe %s (group %s) over RDMA, while the other "
            "hosts of its group answer." % (n, peer, grp))


def tor_desc(share, grp):
    return ("Probes into group %s fail from %s of the groups: its switch or "
            "its uplinks." % (grp, share))


def path_desc(share, src, dst):
    return ("%s of the probes from group %s to group %s fail while both "
            "groups reach the others: the spine path between them."
            % (share, src, dst))


def document():
    crosses = lambda g: lambda s, d: (group(s) == g) != (group(d) == g)
    between = lambda x, y: lambda s, d: {group(s), group(d)} == {x, y}
    out = ("# Generated by tests/sim/fabric_alert_cases.py; do not edit.\n"
           "# promtool test rules: the fabric suspect alerts on a synthetic\n"
           "# fleet of 4 ToRs (a-d) of 3 hosts, one fault per case.\n"
           "rule_files:\n"
           "  - ../rules/rnic_fabric_rules.yaml\n"
           "  - ../alerts/rnic_fabric_alerts.yaml\n"
           "evaluation_interval: 1m\n\ntests:\n")
    out += case(
        "A broken host (every pair to and from a1) names a1 alone",
        lambda s, d: "a1" in (s, d),
        {"RnicFabricSuspectHost": [
            ([("peer", "a1"), ("dst_group", "a")], host_desc(11, "a1", "a"))]})
    out += case(
        "ToR b's uplinks down (every pair between b and the others) names b",
        crosses("b"),
        {"RnicFabricSuspectTor": [
            ([("dst_group", "b")], tor_desc("75%", "b"))]})
    out += case(
        "The path between a and c (every pair between them) names the path",
        between("a", "c"),
        {"RnicFabricSuspectPath": [
            ([("src_group", "a"), ("dst_group", "c")],
             path_desc("100%", "a", "c")),
            ([("src_group", "c"), ("dst_group", "a")],
             path_desc("100%", "c", "a"))]})
    out += case(
        "A single bad pair (a1 to b1) names nothing",
        lambda s, d: (s, d) == ("a1", "b1"), {},
        samples=[
            ('instance_peer:rnic_fabric_probes_failed:ratio_rate5m'
             '{instance="a1:9709",peer="b1"}',
             'instance_peer:rnic_fabric_probes_failed:ratio_rate5m'
             '{instance="a1:9709",peer="b1",dst_group="b"}', 1),
            ('instance_dst_group:rnic_fabric_probes:rate5m'
             '{instance="a1:9709",dst_group="b",result="ok"}',
             'instance_dst_group:rnic_fabric_probes:rate5m'
             '{instance="a1:9709",dst_group="b",result="ok"}', 20),
            ('src_group_dst_group:rnic_fabric_probes_failed:ratio_rate5m'
             '{src_group="a",dst_group="b"}',
             'src_group_dst_group:rnic_fabric_probes_failed:ratio_rate5m'
             '{src_group="a",dst_group="b"}', 0.111),
        ])
    out += case(
        "ToR c's uplinks down, seen through a partial mesh's group counters",
        crosses("c"),
        {"RnicFabricSuspectTor": [
            ([("dst_group", "c")], tor_desc("75%", "c"))]},
        partial=True,
        samples=[
            # Three hosts of c, 10 probes a second each, all timing out.
            ('instance_dst_group:rnic_fabric_probes:rate5m'
             '{instance="a1:9709",dst_group="c"}',
             'instance_dst_group:rnic_fabric_probes:rate5m'
             '{instance="a1:9709",dst_group="c",result="timeout"}', 30),
        ])
    return out


def main():
    text = document()
    if "--check" in sys.argv:
        current = open(OUT, encoding="utf-8").read() \
            if os.path.exists(OUT) else ""
        if current != text:
            print("%s is not what tests/sim/fabric_alert_cases.py writes; "
                  "run it" % OUT)
            return 1
        return 0
    open(OUT, "w", encoding="utf-8").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
