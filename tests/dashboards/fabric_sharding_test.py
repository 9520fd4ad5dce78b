#!/usr/bin/env python3
"""The fabric fleet rules split between Prometheus shards and a global level
(dashboards/sharding, collectors/fabric/README.md "Sharding"), with real
Prometheus servers on 127.0.0.1: two shards (hashmod over the targets'
addresses, dashboards/sharding/prometheus-shard.yml) scrape a synthetic
fleet of 32 hosts on 4 ToRs, the global one federates their pre-aggregated
series (prometheus-global.yml) and runs the shipped suspect alerts. For a
ToR, a host, one rail of a host (its link) and a ToR-to-ToR path fault the
global level's alert names that element and no other suspect fires; a
single bad pair names nothing; the global Pingmesh matrix is the mean over
every source host, whichever shard holds it. The global rules' copies of
the fleet rules are the shipped expressions, thresholds included. The
shipped rules are loaded with time compressed (tests/vm/host/scale_rules.py),
and every wait is on a condition.

Environment: RNIC_SOURCE_DIR (repository), PROMETHEUS (binary; default
`prometheus` on PATH).
"""
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import yaml

REPO = os.environ.get("RNIC_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
PROMETHEUS = os.environ.get("PROMETHEUS", "prometheus")
SCALE = 6  # 1m rate windows -> 10 s, `for:` and `interval: 10s` -> 1.7 s
# 8 hosts a ToR: a host's own failing probes are 1/7 of what each of its
# ToR's other hosts sees, under the rules' 0.15, as in a real ToR of 32.
GROUPS = {g: [f"{g[-1]}{i}" for i in range(1, 9)]
          for g in ("tor-a", "tor-b", "tor-c", "tor-d")}
GROUP_OF = {h: g for g, hs in GROUPS.items() for h in hs}
RAILS = ("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3")  # one subnet per rail
RATE = 10.0  # probes per second per (pair, rail) and per (host, other group)
RTT = 10e-6  # seconds per answered probe
SUSPECTS = ("RnicFabricSuspectHost", "RnicFabricSuspectLink",
            "RnicFabricSuspectTor", "RnicFabricSuspectPath")
FLEET_GROUP = "rnic.rules.fabric.fleet"


class Fail(Exception):
    pass


class Fleet:
    """Counters of every host's fabric probes under the current fault: a
    host probes its own ToR's hosts per pair and rail (its device to the
    peer's device of the same rail) and every other ToR per group (its
    members and rails in turn, so a failing member is an eighth of them),
    as the partial mesh exports them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.fault = None
        self.totals = {}  # series key -> (value, last update)

    def pair_fails(self, s, d, rail=None):
        """Whether probes s -> d fail on rail (None: the share of rails)."""
        if rail is None:
            return sum(self.pair_fails(s, d, r) for r in RAILS) / len(RAILS)
        kind, what = self.fault or (None, None)
        if kind == "host":
            return what in (s, d)
        if kind == "link":
            return what[0] in (s, d) and rail == what[1]
        if kind == "tor":
            return (GROUP_OF[s] == what) != (GROUP_OF[d] == what)
        if kind == "path":
            return {GROUP_OF[s], GROUP_OF[d]} == set(what)
        if kind == "pair":
            return {s, d} == set(what)
        return False

    def set_fault(self, fault):
        with self.lock:
            self._advance(time.time())
            self.fault = fault

    def _rates(self, host):
        """(labels, ok rate, timeout rate) of each probe counter of host."""
        out = []
        for peer in GROUPS[GROUP_OF[host]]:
            if peer == host:
                continue
            for rail in RAILS:
                f = 1.0 if self.pair_fails(host, peer, rail) else 0.0
                out.append((("rnic_fabric_probes_total",
                             f'device="{rail}",peer="{peer}",remote_device="{rail}",'
                             'operation="send"'), f))
        for g, members in GROUPS.items():
            if g == GROUP_OF[host]:
                continue
            f = sum(self.pair_fails(host, m) for m in members) / len(members)
            out.append((("rnic_fabric_group_probes_total", f'group="{g}"'), f))
        return out

    def _advance(self, now):
        for host in GROUP_OF:
            for (name, labels), f in self._rates(host):
                for result, share in (("ok", 1 - f), ("timeout", f)):
                    key = (host, name, labels, result)
                    v, t = self.totals.get(key, (0.0, now))
                    self.totals[key] = (v + RATE * share * (now - t), now)
                if name == "rnic_fabric_group_probes_total":
                    key = (host, "rnic_fabric_group_ok_rtt_seconds_total", labels, None)
                    v, t = self.totals.get(key, (0.0, now))
                    self.totals[key] = (v + RTT * RATE * (1 - f) * (now - t), now)

    def exposition(self, host):
        with self.lock:
            self._advance(time.time())
            lines = [f'rnic_fabric_mesh_info{{host="{host}",group="{GROUP_OF[host]}"}} 1']
            for peer in GROUPS[GROUP_OF[host]]:
                if peer != host:
                    lines.append(f'rnic_fabric_peer_group_info{{peer="{peer}",group="{GROUP_OF[peer]}"}} 1')
            for (h, name, labels, result), (v, _) in sorted(self.totals.items()):
                if h == host and result is None:
                    lines.append(f'{name}{{{labels}}} {v:.9f}')
                elif h == host:
                    lines.append(f'{name}{{{labels},result="{result}"}} {v:.3f}')
        return "\n".join(lines) + "\n"


def serve_fleet(fleet):
    """One HTTP server per host on 127.0.0.1; returns {host: port}."""
    ports = {}
    for host in GROUP_OF:
        class Handler(http.server.BaseHTTPRequestHandler):
            name = host

            def do_GET(self):
                body = fleet.exposition(self.name).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain; version=0.0.4")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # a Prometheus stopping mid-scrape
                    pass

            def log_message(self, *args):
                pass
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        ports[host] = srv.server_address[1]
    return ports


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prom:
    def __init__(self, name, workdir, config):
        self.name = name
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir)
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)
        for _ in range(3):
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.log = open(os.path.join(self.dir, "log"), "w")
            self.proc = subprocess.Popen(
                [PROMETHEUS, f"--config.file={cfg}", f"--storage.tsdb.path={self.dir}/data",
                 f"--web.listen-address=127.0.0.1:{self.port}"],
                stdout=self.log, stderr=subprocess.STDOUT)
            end = time.time() + 60
            while time.time() < end and self.proc.poll() is None:
                try:
                    urllib.request.urlopen(self.url + "/-/ready", timeout=2).read()
                    return
                except OSError:
                    time.sleep(0.2)
            self.stop()
            with open(os.path.join(self.dir, "log")) as f:
                text = f.read()
            if "address already in use" not in text:
                raise Fail(f"prometheus {name} did not start: {text[-2000:]}")
        raise Fail(f"prometheus {name}: no free port")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def api(self, path, **params):
        url = f"{self.url}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.loads(r.read())
        if body["status"] != "success":
            raise Fail(f"{self.name} {path}: {body}")
        return body["data"]

    def query(self, expr):
        return [(s["metric"], float(s["value"][1]))
                for s in self.api("query", query=expr)["result"]]

    def alerts(self):
        return self.api("alerts")["alerts"]


def wait(what, check, timeout):
    """Poll check() until truthy (returned); fail with its last value."""
    end = time.time() + timeout
    last = None
    while True:
        last = check()
        if last and last is not None and last is not False:
            return last
        if time.time() > end:
            raise Fail(f"timed out after {timeout:.0f}s waiting for {what}; last: {last!r}")
        time.sleep(0.5)


def scaled_rules(workdir, files):
    out = os.path.join(workdir, "rules")
    script = os.path.join(REPO, "tests", "vm", "host", "scale_rules.py")
    paths = []
    for f in files:
        p = subprocess.run([sys.executable, script, str(SCALE), out, os.path.join(REPO, f)],
                           check=True, capture_output=True, text=True).stdout.strip()
        paths.append(p)
    return paths


def check_copies():
    """The global rules that are not merges of the shards' sums and counts
    are the fleet group's rules verbatim (thresholds included), and the
    global level records every series the suspect alerts read."""
    def load(path):
        with open(os.path.join(REPO, path)) as f:
            return yaml.safe_load(f)["groups"]
    fleet = {r["record"]: " ".join(r["expr"].split())
             for g in load("dashboards/rules/rnic_fabric_rules.yaml")
             if g["name"] == FLEET_GROUP for r in g["rules"]}
    merged = 0
    recorded = set()
    for g in load("dashboards/sharding/rnic_fabric_global_rules.yaml"):
        for r in g["rules"]:
            name, expr = r["record"], " ".join(r["expr"].split())
            recorded.add(name)
            if name not in fleet:
                raise Fail(f"global rule {name} is not a fleet rule's series")
            if re.search(r":(\w+_sum|\w+_count|shard_count)\b", expr):
                merged += 1
            elif expr != fleet[name]:
                raise Fail(f"global rule {name} differs from {FLEET_GROUP}'s:\n"
                           f"  {expr}\n  {fleet[name]}")
    read = set()
    for g in load("dashboards/alerts/rnic_fabric_alerts.yaml"):
        for r in g["rules"]:
            if r.get("alert") in SUSPECTS:
                read |= set(re.findall(r"\b[a-z_]+:rnic_fabric_[a-z_]+:[a-z0-9_]+", r["expr"]))
    if len({r.get("alert") for g in load("dashboards/alerts/rnic_fabric_alerts.yaml")
            for r in g["rules"]} & set(SUSPECTS)) != len(SUSPECTS):
        raise Fail(f"the alerts file does not hold all of {SUSPECTS}")
    if read - recorded:
        raise Fail(f"the suspect alerts read series the global level lacks: {read - recorded}")
    print(f"global rules: {merged} merges, {len(recorded) - merged} verbatim copies of "
          f"{FLEET_GROUP}; the suspect alerts read {len(read)} of them")


def timing(global_prom):
    """Rate window of the shipped fleet rules (as scaled) and the longest
    `for` of the suspect alerts, from the rule files as loaded."""
    window = 0.0
    with open(os.path.join(REPO, "dashboards/rules/rnic_fabric_rules.yaml")) as f:
        text = " ".join(r["expr"] for g in yaml.safe_load(f)["groups"]
                        if g["name"] == FLEET_GROUP for r in g["rules"])
    units = {"s": 1, "m": 60, "h": 3600}
    for n, u in re.findall(r"\[(\d+)([smh])\]", text):
        window = max(window, int(n) * units[u] / SCALE)
    hold = max(float(r.get("duration", 0)) for g in global_prom.api("rules")["groups"]
               for r in g["rules"] if r.get("name") in SUSPECTS)
    return max(window, 4.0), hold


def run(workdir):
    check_copies()
    with open(os.path.join(REPO, "dashboards/sharding/prometheus-shard.yml")) as f:
        shard_cfg = yaml.safe_load(f)
    with open(os.path.join(REPO, "dashboards/sharding/prometheus-global.yml")) as f:
        global_cfg = yaml.safe_load(f)
    # The shards drop every suspect alert (they see a slice of the fleet).
    with open(os.path.join(REPO, "dashboards/alerts/rnic_fabric_alerts.yaml")) as f:
        alerts = [r["alert"] for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
    drop = [r for r in shard_cfg["alerting"]["alert_relabel_configs"] if r["action"] == "drop"]
    dropped = {a for a in alerts for r in drop if re.fullmatch(r["regex"], a)}
    if dropped != set(SUSPECTS):
        raise Fail(f"the shards drop {sorted(dropped)}, not the suspects {SUSPECTS}")

    fleet = Fleet()
    ports = serve_fleet(fleet)
    sd = os.path.join(workdir, "hosts.json")
    with open(sd, "w") as f:
        json.dump([{"targets": [f"127.0.0.1:{p}"], "labels": {"exporter": h}}
                   for h, p in ports.items()], f)

    # The shipped configs, with this test's files, ports and 1 s intervals.
    shard_rules = scaled_rules(workdir, ["dashboards/rules/rnic_fabric_rules.yaml",
                                         "dashboards/alerts/rnic_fabric_alerts.yaml",
                                         "dashboards/sharding/rnic_fabric_shard_rules.yaml"])
    global_rules = scaled_rules(workdir, ["dashboards/sharding/rnic_fabric_global_rules.yaml",
                                          "dashboards/alerts/rnic_fabric_alerts.yaml"])
    fast = {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"}
    shards = []
    try:
        for n in range(2):
            cfg = json.loads(json.dumps(shard_cfg))
            cfg["global"].update(fast)
            cfg["global"]["external_labels"]["shard"] = str(n)
            cfg["rule_files"] = shard_rules
            del cfg["alerting"]["alertmanagers"]
            job = cfg["scrape_configs"][0]
            job["file_sd_configs"] = [{"files": [sd], "refresh_interval": "1s"}]
            hashmod, keep = job["relabel_configs"]
            hashmod["modulus"] = 2
            keep["regex"] = str(n)
            shards.append(Prom(f"shard{n}", workdir, cfg))
        cfg = json.loads(json.dumps(global_cfg))
        cfg["global"].update(fast)
        cfg["rule_files"] = global_rules
        del cfg["alerting"]
        cfg["scrape_configs"][0]["static_configs"] = [
            {"targets": [f"127.0.0.1:{s.port}" for s in shards]}]
        glob = Prom("global", workdir, cfg)
        shards.append(glob)
        check(fleet, shards[:2], glob)
    finally:
        for p in shards:
            p.stop()


def suspects(glob):
    return [a for a in glob.alerts() if a["labels"]["alertname"] in SUSPECTS]


def key(a):
    lab = a["labels"]
    return (lab["alertname"],) + tuple(
        f"{k}={lab[k]}" for k in ("peer", "remote_device", "src_group", "dst_group") if k in lab)


def check(fleet, shards, glob):
    window, hold = timing(glob)
    timeout = 4 * (window + hold) + 60
    print(f"rate window {window:g}s, suspect alerts' for {hold:g}s; waits up to {timeout:g}s")

    # Hosts split over both shards, and a ToR's hosts over both: the
    # global sums add across shards.
    held = {}

    def all_up():
        for n, s in enumerate(shards):
            held[n] = {m["exporter"] for m, _ in s.query('up{job="rnic"} == 1')}
        return sum(len(h) for h in held.values()) >= len(GROUP_OF)
    wait("every host scraped by a shard", all_up, 60)
    print(f"shard hosts: {sorted(held[0])} | {sorted(held[1])}")
    if held[0] & held[1] or len(held[0] | held[1]) != len(GROUP_OF) or not held[0] or not held[1]:
        raise Fail(f"the shards do not split the fleet: {held}")
    split = [g for g, hs in GROUPS.items() if set(hs) & held[0] and set(hs) & held[1]]
    if not split:
        raise Fail(f"no ToR has hosts in both shards: {held}")

    matrix = "src_group_dst_group:rnic_fabric_probes_failed:ratio_rate1m"

    def matrix_is(expected, tol=0.05):
        def probe():
            got = {(m["src_group"], m["dst_group"]): v for m, v in glob.query(matrix)}
            if len(got) == len(expected) and all(
                    abs(got[k] - v) <= tol for k, v in expected.items() if k in got):
                return True
            return sorted((f"{k[0]}>{k[1]}", round(v, 3)) for k, v in got.items())
        return lambda: probe() is True or None

    def expected_matrix():
        out = {}
        for sg, srcs in GROUPS.items():
            for dg, dsts in GROUPS.items():
                ratios = []
                for s in srcs:
                    peers = [d for d in dsts if d != s]
                    ratios.append(sum(fleet.pair_fails(s, d) for d in peers) / len(peers))
                out[(sg, dg)] = sum(ratios) / len(ratios)
        return out

    wait("the global matrix: 16 ToR pairs, all healthy", matrix_is(expected_matrix()), timeout)
    wait("no suspect alert at the start", lambda: not suspects(glob), timeout)
    rtt = "src_group_dst_group:rnic_fabric_rtt_seconds:mean_rate1m"
    wait("the global mean RTT of the 12 ToR pairs probed per group",
         lambda: (lambda got: len(got) == 12 and all(abs(v - RTT) < 1e-7 for _, v in got))(
             glob.query(rtt)), timeout)

    def phase(fault, expected):
        fleet.set_fault(fault)
        start = time.time()
        seen, fired = set(), None
        end = start + timeout
        while True:
            for a in suspects(glob):
                k = key(a)
                if (k, a["state"]) not in seen:
                    seen.add((k, a["state"]))
                    print(f"  {a['state']} {k}")
                if a["state"] == "firing" and k not in expected:
                    raise Fail(f"{fault}: {k} fired; expected only {expected}")
            firing = {key(a) for a in suspects(glob) if a["state"] == "firing"}
            if expected and firing == set(expected) and fired is None:
                fired = time.time()
                print(f"{fault}: {sorted(expected)} firing {fired - start:.0f}s after the fault")
            # Nothing else for `for` and one window more; a fault expecting
            # nothing is watched for as long as a named one takes to fire.
            if fired and time.time() - fired > hold + window:
                break
            if not expected and time.time() - start > 2 * (window + hold) + 5:
                break
            if time.time() > end:
                raise Fail(f"{fault}: {sorted(expected)} not all firing within {timeout:.0f}s; "
                           f"seen {sorted(seen)}")
            time.sleep(0.5)
        wait(f"{fault}: the global matrix", matrix_is(expected_matrix()), timeout)
        fleet.set_fault(None)
        wait(f"{fault} repaired: no suspect alert", lambda: not suspects(glob), timeout)
        wait(f"{fault} repaired: the matrix healthy", matrix_is(expected_matrix()), timeout)

    phase(("tor", "tor-c"), [("RnicFabricSuspectTor", "dst_group=tor-c")])
    # A host of a ToR split over the shards.
    host = sorted(set(GROUPS[split[0]]))[1]
    phase(("host", host), [("RnicFabricSuspectHost", f"peer={host}", f"dst_group={split[0]}")])
    # One rail of a host of a ToR split over the shards: its link.
    host = sorted(set(GROUPS[split[-1]]))[2]
    phase(("link", (host, "mlx5_2")),
          [("RnicFabricSuspectLink", f"peer={host}", "remote_device=mlx5_2",
            f"dst_group={split[-1]}")])
    phase(("path", ("tor-a", "tor-d")),
          [("RnicFabricSuspectPath", "src_group=tor-a", "dst_group=tor-d"),
           ("RnicFabricSuspectPath", "src_group=tor-d", "dst_group=tor-a")])
    # One bad pair names nothing: two hosts of a ToR split over the shards,
    # which probe each other, so the global level counts the pair once per
    # direction (each end's partner failing twice) and still names nothing.
    x = sorted(set(GROUPS[split[0]]) & held[0])[0]
    y = sorted(set(GROUPS[split[0]]) & held[1])[0]
    fleet.set_fault(("pair", (x, y)))
    seen = []

    def pair_seen():
        seen[:] = glob.query(f'peer:rnic_fabric_sources_failing:count{{peer=~"{x}|{y}"}}')
        return len(seen) == 2 and all(v == 2 for _, v in seen)
    try:
        wait(f"the bad pair {x}-{y} in the global series (2 failing partners each)",
             pair_seen, timeout)
    except Fail as e:
        raise Fail(f"{e}; counts: {seen}") from None
    phase(("pair", (x, y)), [])

    # Every rule evaluated without error on every server.
    for p in shards + [glob]:
        bad = [(g["name"], r.get("name"), r.get("lastError"))
               for g in p.api("rules")["groups"] for r in g["rules"] if r.get("health") != "ok"]
        if bad:
            raise Fail(f"{p.name}: rules not healthy: {bad}")


def main():
    if shutil.which(PROMETHEUS) is None:
        print(f"{PROMETHEUS} not found: install Debian package prometheus", file=sys.stderr)
        return 1
    workdir = tempfile.mkdtemp(prefix="rnic_sharding_")
    try:
        run(workdir)
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        for name in ("shard0", "shard1", "global"):
            log = os.path.join(workdir, name, "log")
            if os.path.exists(log):
                with open(log) as f:
                    print(f"--- {name} log (tail) ---\n" + "".join(f.readlines()[-15:]),
                          file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
