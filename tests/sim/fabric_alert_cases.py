#!/usr/bin/env python3
"""Writes dashboards/tests/alerts_fabric_fleet_test.yaml: promtool cases of
the fabric suspect alerts on a synthetic fleet of 4 groups (ToRs a-d) of 3
hosts, one fault each: a host, one device of a host (its cable), a ToR's
uplinks, the path between two groups, a single bad pair (which must name
nothing), and a ToR seen through a partial mesh's per-group counters; and
on the VM case's partial mesh (a ToR of four, two of two, own-group pairs
probed by one end): a ToR whose failures reach one group two evaluations
after another, while its own hosts' probes fail at once (the path must not
fire at any evaluation), and a broken
host of the ToR of four.
Samples every 10 s, as the fleet rules are evaluated; the fault starts at
5m and must be named at 5m30s, not at 5m10s.

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
ALERTS = ("RnicFabricSuspectHost", "RnicFabricSuspectLink",
          "RnicFabricSuspectTor", "RnicFabricSuspectPath")
# 10 probes a second, sampled every 10 s for 10 minutes; a fault starts
# after sample FAULT (5m).
STEP = 100
SAMPLES = 60
FAULT = 30
CONST = "1x%d" % SAMPLES
RTT = 1e-5


def counter(before, after, fault=FAULT):
    """Increments of STEP per sample while `before` (until `fault`) or
    `after` (from then on) holds, else flat."""
    first = "0+%dx%d" % (STEP if before else 0, fault)
    base = STEP * fault if before else 0
    rest = SAMPLES - fault - 1
    if after:
        return "%s %d+%dx%d" % (first, base + STEP, STEP, rest)
    return "%s %dx%d" % (first, base, rest)


def group(host):
    return host[0]


def fails_from(failed):
    """The sample a pair fails from: `failed` is False, True (FAULT) or a
    sample number."""
    if failed is False or failed is None:
        return None
    return FAULT if failed is True else failed


def series(name, labels, values):
    text = ",".join('%s="%s"' % kv for kv in labels)
    return "      - series: '%s{%s}'\n        values: '%s'\n" % (
        name, text, values)


def fleet(bad, partial=False, rails=1, hosts=None, detail=None):
    """Input series: every host probes every other on each rail (device i
    to device i); `bad(src, dst, rail)` says which fail from FAULT on (or
    from the sample it returns). `partial`: every probe counts per group
    and only the own group's pairs are per pair, as the exporter does above
    fabric.mesh.max_peers; `detail(src, dst)` then says which of them (by
    default all)."""
    hosts = hosts or HOSTS
    out = ""
    for src in hosts:
        inst = [("job", "rnic"), ("instance", src + ":9709")]
        out += series("rnic_fabric_mesh_info",
                      inst + [("host", src), ("group", group(src))], CONST)
        per_group = {}
        for dst in hosts:
            if dst == src:
                continue
            if partial and group(dst) == group(src) and detail and \
                    not detail(src, dst):
                continue
            per_pair = not partial or group(dst) == group(src)
            if per_pair:
                out += series("rnic_fabric_peer_group_info",
                              inst + [("peer", dst), ("group", group(dst))],
                              CONST)
            for rail in range(rails):
                start = fails_from(bad(src, dst, rail))
                g = per_group.setdefault(group(dst), [0, 0, FAULT])
                g[0] += 1
                if start is not None:
                    g[1] += 1
                    g[2] = start
                if not per_pair:
                    continue
                dev = "mlx5_%d" % rail
                pair = inst + [("device", dev), ("peer", dst),
                               ("remote_device", dev), ("operation", "send")]
                out += series("rnic_fabric_probes_total",
                              pair + [("result", "ok")],
                              counter(True, start is None, start or FAULT))
                if start is not None:
                    out += series("rnic_fabric_probes_total",
                                  pair + [("result", "timeout")],
                                  counter(False, True, start))
        if not partial:
            continue
        for g, (total, failed, start) in sorted(per_group.items()):
            # The pairs into one group fail from the same sample.
            labels = inst + [("group", g)]
            # Every ok probe takes 10 us.
            ok_before, ok_after = STEP * total * RTT, STEP * (total - failed) * RTT
            out += series("rnic_fabric_group_ok_rtt_seconds_total", labels,
                          "0+%gx%d %g+%gx%d" % (
                              ok_before, start, ok_before * start + ok_after,
                              ok_after, SAMPLES - start - 1))
            out += series("rnic_fabric_group_probes_total",
                          labels + [("result", "ok")],
                          "0+%dx%d %d+%dx%d" % (
                              STEP * total, start,
                              STEP * (total * start + total - failed),
                              STEP * (total - failed), SAMPLES - start - 1))
            if failed:
                out += series("rnic_fabric_group_probes_total",
                              labels + [("result", "timeout")],
                              counter(False, True, start).replace(
                                  "%d+%d" % (STEP, STEP),
                                  "%d+%d" % (STEP * failed, STEP * failed)))
    return out


SUMMARY = {
    "RnicFabricSuspectHost":
        "A host is the common element of failing fabric probes.",
    "RnicFabricSuspectLink":
        "One device of a host (its link) is the common element of failing "
        "fabric probes.",
    "RnicFabricSuspectTor":
        "A ToR (group) is the common element of failing fabric probes.",
    "RnicFabricSuspectPath":
        "The path between two groups is the common element of failing "
        "fabric probes.",
}


def expected(alert, fired, at):
    """alert_rule_test entries at `at`: `fired` lists (labels,
    description)."""
    out = "      - eval_time: %s\n        alertname: %s\n" % (at, alert)
    if not fired:
        return out + "        exp_alerts: []\n"
    out += "        exp_alerts:\n"
    for labels, description in fired:
        out += "          - exp_labels:\n              severity: warning\n"
        for k, v in labels:
            out += "              %s: %s\n" % (k, v)
        out += ("            exp_annotations:\n"
                "              summary: %s\n"
                "              description: >-\n                %s\n"
                "              runbook_url: %s%s\n"
                % (SUMMARY[alert], description, RUNBOOK, alert.lower()))
    return out


def case(name, bad, fired, partial=False, rails=1, samples=(), hosts=None,
         detail=None, timeline=None):
    """`samples`: (recorded series selector, labels, value) checked at 10m,
    the window full of the fault. `timeline`: (alert, named from) checked
    at every evaluation from 5m to 6m instead (the rest never fires)."""
    out = "  - name: %s\n    interval: 10s\n    input_series:\n" % name
    out += fleet(bad, partial, rails, hosts, detail)
    out += "    alert_rule_test:\n"
    if timeline:
        alert, start = timeline
        for sec in range(300, 370, 10):
            at = "%dm%ds" % (sec // 60, sec % 60) if sec % 60 else "%dm" % (sec // 60)
            for a in ALERTS:
                if a == alert and start - 10 <= sec < start:
                    continue  # one group evaluation apart (see below)
                out += expected(a, fired.get(a, []) if a == alert and
                                sec >= start else [], at)
        return out + promql(samples)
    # Not yet one evaluation after the start; named after three.
    for alert in ALERTS:
        out += expected(alert, [], "5m10s")
    for alert in ALERTS:
        out += expected(alert, fired.get(alert, []), "5m30s")
    return out + promql(samples)


def promql(samples):
    out = ""
    if samples:
        out += "    promql_expr_test:\n"
    for expr, labels, value in samples:
        # Rounded: rate() over these counters is exact only to the last bit.
        out += ("      - expr: 'round(%s, 0.001)'\n        eval_time: 10m\n"
                "        exp_samples:\n"
                "          - labels: '%s'\n            value: %s\n"
                % (expr, labels[labels.index("{"):], value))
    return out


def host_desc(n, peer, grp):
    return ("%d hosts see their probes to or from %s (group %s) fail over "
            "RDMA, while the other hosts of its group answer." % (n, peer, grp))


def link_desc(n, peer, device, grp):
    return ("%d hosts see their probes to or from %s %s (group %s) fail over "
            "RDMA, while its other devices answer: the adapter port, its cable "
            "or its switch port." % (n, peer, device, grp))


def tor_desc(share, grp):
    return ("Probes into group %s fail from %s of the groups: its switch or "
            "its uplinks." % (grp, share))


def path_desc(n, src, dst):
    return ("%d hosts of groups %s and %s fail to probe the other group while "
            "both groups reach the others: the spine path between them."
            % (n, src, dst))


def document():
    crosses = lambda g: lambda s, d, r: (group(s) == g) != (group(d) == g)
    between = lambda x, y: lambda s, d, r: {group(s), group(d)} == {x, y}
    out = ("# Generated by tests/sim/fabric_alert_cases.py; do not edit.\n"
           "# promtool test rules: the fabric suspect alerts on a synthetic\n"
           "# fleet of 4 ToRs (a-d) of 3 hosts, one fault per case, named\n"
           "# 30 s after it starts.\n"
           "rule_files:\n"
           "  - ../rules/rnic_fabric_rules.yaml\n"
           "  - ../alerts/rnic_fabric_alerts.yaml\n"
           "evaluation_interval: 10s\n\ntests:\n")
    out += case(
        "A broken host (every pair to and from a1) names a1 alone",
        lambda s, d, r: "a1" in (s, d),
        {"RnicFabricSuspectHost": [
            ([("peer", "a1"), ("dst_group", "a")], host_desc(11, "a1", "a"))]},
        samples=[
            ('peer:rnic_fabric_sources_failing:count{peer="a1"}',
             '{peer="a1",dst_group="a"}', 11),
            # a1 of the 3 hosts of a.
            ('dst_group:rnic_fabric_peers_failing:ratio{dst_group="a"}',
             '{dst_group="a"}', 0.333),
        ])
    out += case(
        "One device of a host (a1's mlx5_3, its cable) names that link alone",
        lambda s, d, r: "a1" in (s, d) and r == 3,
        {"RnicFabricSuspectLink": [
            ([("peer", "a1"), ("remote_device", "mlx5_3"),
              ("dst_group", "a")], link_desc(11, "a1", "mlx5_3", "a"))]},
        rails=4,
        samples=[
            ('instance_peer_remote_device:rnic_fabric_probes_failed:'
             'ratio_rate1m{instance="b1:9709",peer="a1",remote_device="mlx5_3"}',
             '{job="rnic",instance="b1:9709",peer="a1",remote_device="mlx5_3",'
             'dst_group="a"}', 1),
        ])
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
             path_desc(6, "a", "c")),
            ([("src_group", "c"), ("dst_group", "a")],
             path_desc(6, "c", "a"))]},
        samples=[
            # A path fails no pair of a group's own hosts.
            ('sum(dst_group:rnic_fabric_own_pairs_failing:count)', '{}', 0),
        ])
    out += case(
        "A single bad pair (a1 to b1) names nothing",
        lambda s, d, r: (s, d) == ("a1", "b1"), {},
        samples=[
            ('instance_peer:rnic_fabric_probes_failed:ratio_rate1m'
             '{instance="a1:9709",peer="b1"}',
             'instance_peer:rnic_fabric_probes_failed:ratio_rate1m'
             '{job="rnic",instance="a1:9709",peer="b1",dst_group="b"}', 1),
            ('instance_dst_group:rnic_fabric_probes:rate1m'
             '{instance="a1:9709",dst_group="b",result="ok"}',
             'instance_dst_group:rnic_fabric_probes:rate1m'
             '{job="rnic",instance="a1:9709",dst_group="b",result="ok"}', 20),
            # b1 of the 3 hosts of b a1 probes.
            ('instance_dst_group:rnic_fabric_probes_failed:ratio_rate1m'
             '{instance="a1:9709",dst_group="b"}',
             '{job="rnic",instance="a1:9709",dst_group="b",src_host="a1",'
             'src_group="a"}', 0.333),
            ('src_group_dst_group:rnic_fabric_probes_failed:ratio_rate1m'
             '{src_group="a",dst_group="b"}',
             'src_group_dst_group:rnic_fabric_probes_failed:ratio_rate1m'
             '{src_group="a",dst_group="b"}', 0.111),
        ])
    out += case(
        "ToR c's uplinks down, seen through a partial mesh's group counters",
        crosses("c"),
        {"RnicFabricSuspectTor": [
            ([("dst_group", "c")], tor_desc("75%", "c"))]},
        partial=True,
        samples=[
            # a's probes into b take 10 us (in microseconds).
            ('instance_dst_group:rnic_fabric_rtt_seconds:mean_rate1m'
             '{instance="a1:9709",dst_group="b"} * 1e6',
             '{job="rnic",instance="a1:9709",dst_group="b",src_host="a1",'
             'src_group="a"}', 10),
            ('src_group_dst_group:rnic_fabric_rtt_seconds:mean_rate1m'
             '{src_group="a",dst_group="b"} * 1e6',
             '{src_group="a",dst_group="b"}', 10),
            # Three hosts of c, 10 probes a second each, all timing out.
            ('instance_dst_group:rnic_fabric_probes:rate1m'
             '{instance="a1:9709",dst_group="c",result="timeout"}',
             'instance_dst_group:rnic_fabric_probes:rate1m'
             '{job="rnic",instance="a1:9709",dst_group="c",result="timeout"}', 30),
        ])
    # The VM case's fabric (tests/vm/cases/fabric_mesh): a ToR of four, two
    # of two, a partial mesh whose own-group pairs are probed by one end.
    vm_hosts = ["a1", "a2", "a3", "a4", "b1", "b2", "c1", "c2"]

    def one_end(src, dst):
        members = [h for h in vm_hosts if group(h) == group(src)]
        m, r, q = len(members), members.index(src), members.index(dst)
        d = (q - r) % m
        return d <= (m - 1) // 2 or (2 * d == m and r < q)

    def uplink_b(s, d, r):
        # c's probes across b's uplink fail first, a's into b two
        # evaluations later (a group whose hosts took turns probing b sees
        # its ratio rise more slowly); b's own hosts probe every group each
        # period, so their probes into a fail at once.
        if {group(s), group(d)} == {"b", "c"} or (group(s), group(d)) == ("b", "a"):
            return True
        return FAULT + 2 if (group(s), group(d)) == ("a", "b") else None
    out += case(
        "ToR b's uplinks down, a's probes into b failing 20 s after c's; the "
        "path from c never fires, the ToR does",
        uplink_b,
        {"RnicFabricSuspectTor": [
            ([("dst_group", "b")], tor_desc("66.67%", "b"))]},
        partial=True, hosts=vm_hosts, detail=one_end,
        timeline=("RnicFabricSuspectTor", 350),
        samples=[
            # a and c of the groups a, b (itself) and c fail into b.
            ('dst_group:rnic_fabric_group_pairs_failing:ratio{dst_group="b"}',
             '{dst_group="b"}', 0.667),
            ('dst_group:rnic_fabric_group_pairs_failing:count{dst_group="b"}',
             '{dst_group="b"}', 2),
            ('src_group_dst_group:rnic_fabric_hosts_failing:count'
             '{src_group="c",dst_group="b"}',
             '{src_group="c",dst_group="b"}', 2),
        ])
    out += case(
        "A broken host of a ToR of four probed by one end per pair (a1 "
        "probes a2, a2 probes a3 and a4) names that host alone",
        lambda s, d, r: "a2" in (s, d),
        {"RnicFabricSuspectHost": [
            ([("peer", "a2"), ("dst_group", "a")], host_desc(3, "a2", "a"))]},
        partial=True, hosts=vm_hosts, detail=one_end,
        samples=[
            ('peer:rnic_fabric_sources_failing:count{peer="a2"}',
             '{peer="a2",dst_group="a"}', 3),
            # a2's pairs at both ends: a1 probes it, it probes a3 and a4.
            ('count(peer_partner:rnic_fabric_probes_failed:ratio_rate1m'
             '{peer="a2"} == 1)', '{}', 3),
            ('peer_remote_device_partner:rnic_fabric_probes_failed:'
             'ratio_rate1m{peer="a2",partner="a3"}',
             '{peer="a2",remote_device="mlx5_0",dst_group="a",partner="a3"}', 1),
            ('instance_device_peer:rnic_fabric_probes_failed:ratio_rate1m'
             '{instance="a2:9709",peer="a3"}',
             '{job="rnic",instance="a2:9709",device="mlx5_0",peer="a3",'
             'dst_group="a"}', 1),
            ('dst_group:rnic_fabric_peers_failing:ratio{dst_group="a"}',
             '{dst_group="a"}', 0.25),
            # Its own group's pairs with it (a1 to a2, a2 to a3 and a4)
            # keep a path to or from a from being named.
            ('dst_group:rnic_fabric_own_pairs_failing:count{dst_group="a"}',
             '{dst_group="a"}', 3),
            ('sum(dst_group:rnic_fabric_own_pairs_failing:count)', '{}', 3),
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
