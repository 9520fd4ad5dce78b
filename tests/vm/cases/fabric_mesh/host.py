"""Eight hosts, three ToRs, the shipped fabric rules and alerts: a lossy
uplink is named as its ToR, a lossy host as that host, and nothing else
fires, from the loss until the alerts have resolved after the repair
(guest.sh builds the fabric and injects the faults)."""
import re
import time

import rnicvm

HOSTS = {"a1": "tor-a", "a2": "tor-a", "a3": "tor-a", "a4": "tor-a",
         "b1": "tor-b", "b2": "tor-b", "c1": "tor-c", "c2": "tor-c"}
# Any of them naming another element fails the case: a lossy host is a
# host, not one of its links.
SUSPECTS = ("RnicFabricSuspectHost", "RnicFabricSuspectLink", "RnicFabricSuspectTor",
            "RnicFabricSuspectPath")
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}


def seconds(text):
    return sum(int(n) * UNITS[u] for n, u in re.findall(r"(\d+)(ms|s|m|h)", text))


def timing(prom):
    """The rate window of the fleet recording rules and the longest `for:`
    of the suspect alerts, as the run's Prometheus loaded them."""
    window, hold = 0.0, 0.0
    for g in prom._api("rules")["groups"]:
        for r in g["rules"]:
            if r["type"] == "recording" and r["name"].startswith("instance_dst_group:"):
                for rng in re.findall(r"\[([0-9a-z]+)\]", r["query"]):
                    window = max(window, seconds(rng))
            if r["type"] == "alerting" and r["name"] in SUSPECTS:
                hold = max(hold, float(r.get("duration", 0)))
    if window <= 0:
        raise rnicvm.CheckFailed("the fleet recording rules are not loaded")
    return window, hold


def host_of(peer):
    return peer.rsplit(":", 1)[0] if peer else peer


# RnicFabricRttHigh compares each pair's p99 with the pair's own history.
# Here eight exporters share two emulated CPUs, and the connections that
# fail during a fault (RC retransmissions, rdma_cm retries) slow every
# pair's round trips, so it goes pending and stays so, on pairs far from
# the fault, without telling anything about the fabric: not watched.
NOT_WATCHED = {"RnicFabricRttHigh"}


def active(prom):
    return [a for a in prom.alerts() if a["labels"]["alertname"].startswith("Rnic")
            and a["labels"]["alertname"] not in NOT_WATCHED]


def describe(a):
    keep = ("alertname", "exporter", "peer", "remote_device", "dst_group", "src_group", "device")
    return f"{a['state']} " + ",".join(f"{k}={a['labels'][k]}" for k in keep if k in a["labels"])


def watch(prom, expected, allowed, timeout, soak):
    """Poll the alerts until `expected(a)` holds for a firing alert, then for
    `soak` seconds more; fail when any alert other than `allowed(a)` fires.
    Returns the seconds until the expected alert fired."""
    start = time.time()
    end = min(start + timeout, rnicvm.deadline() - 5)
    fired_at, seen = None, set()
    while True:
        for a in active(prom):
            d = describe(a)
            if d not in seen:
                seen.add(d)
                rnicvm.log(f"  {d}")
            if a["state"] != "firing":
                continue
            if expected(a):
                fired_at = fired_at or time.time()
            elif not allowed(a):
                raise rnicvm.CheckFailed(f"an alert fired that names another element: {a['labels']}")
        now = time.time()
        if fired_at and now - fired_at >= soak:
            return fired_at - start
        if now >= end:
            raise rnicvm.CheckFailed(f"the expected alert did not fire within {timeout:.0f}s; seen: {sorted(seen)}")
        time.sleep(0.5)


def wait_quiet(prom, timeout, what, allowed=lambda a: False):
    """Wait until no watched Rnic alert is active (pending or firing); fail
    when an alert other than `allowed(a)` fires meanwhile."""
    last = []

    def check():
        alerts = active(prom)
        for a in alerts:
            if a["state"] == "firing" and not allowed(a):
                raise rnicvm.CheckFailed(f"{what}: an alert fired that names another element: "
                                         f"{a['labels']}")
        last[:] = [describe(a) for a in alerts]
        return not last
    try:
        prom.wait(f"no active alert ({what})", check, timeout, interval=1)
    except rnicvm.CheckFailed as e:
        if "names another element" in str(e):
            raise
        raise rnicvm.CheckFailed(f"{e}; still active: {last}") from None


def run():
    prom = rnicvm.Prometheus()
    window, hold = timing(prom)
    # Failures fill half the rate window, then the alert waits `for`; TCG on
    # a loaded machine gets three times that and two minutes more.
    fire_timeout = 3 * (window + hold) + 120
    rnicvm.log(f"rate window {window:g}s, suspect alerts' for {hold:g}s, "
               f"firing awaited up to {fire_timeout:g}s")
    rnicvm.wait_guest("mesh-up", timeout=400)
    prom.wait_up(timeout=120, count=len(HOSTS))

    # Every exporter found itself and its ToR in the peer set, and runs
    # the partial mesh: at most max_peers (4) of its 7 peers a period.
    for h, tor in HOSTS.items():
        prom.wait_present(f'rnic_fabric_mesh_info{{exporter="{h}",host="{h}",group="{tor}"}}',
                          timeout=120)
    peers = {s["exporter"]: v for s, v in
             prom.wait_present("rnic_fabric_scheduled_peers", timeout=60)}
    rnicvm.log(f"peers probed per period: {peers}")
    if len(peers) != len(HOSTS) or not all(1 <= v <= 4 for v in peers.values()):
        raise rnicvm.CheckFailed(f"not a partial mesh of at most 4 peers: {peers}")
    # Probes to other ToRs count per group, not per pair.
    prom.wait_present('rnic_fabric_group_probes_total{result="ok"}', timeout=120)

    # The Pingmesh matrix is complete (every ToR pair, own ToR included)
    # and healthy before any fault.
    matrix = "src_group_dst_group:rnic_fabric_probes_failed:ratio_rate1m"

    last = []

    def healthy():
        r = prom.query(matrix)
        last[:] = sorted((f"{m.get('src_group')}>{m.get('dst_group')}", round(v, 2))
                         for m, v in r)
        return len(r) == 9 and all(v < 0.05 for _, v in r)
    try:
        prom.wait(f"{matrix}: all 9 ToR pairs below 5 %", healthy, timeout=fire_timeout)
    except rnicvm.CheckFailed as e:
        raise rnicvm.CheckFailed(f"{e}; matrix: {last}") from None
    wait_quiet(prom, fire_timeout, "baseline", lambda a: True)
    rnicvm.log("baseline: 9 ToR pairs healthy, no alert")
    # After the expected alert fires, nothing else for one window and the
    # longest `for` more: a suspect that would follow has had its time.
    soak = window + hold

    # 1. tor-b's uplink loses every packet.
    rnicvm.signal_guest("uplink-loss")
    rnicvm.log(f"loss on {rnicvm.wait_guest('uplink-loss-on', timeout=60)}")

    def crosses_b(a):  # a per-pair alert of a pair with one end on tor-b
        src, dst = a["labels"].get("exporter"), host_of(a["labels"].get("peer"))
        return (a["labels"]["alertname"] not in SUSPECTS and src in HOSTS and dst in HOSTS
                and (HOSTS[src] == "tor-b") != (HOSTS[dst] == "tor-b"))

    def tor_b(a):
        return (a["labels"]["alertname"] == "RnicFabricSuspectTor"
                and a["labels"].get("dst_group") == "tor-b")
    t = watch(prom, tor_b, crosses_b, fire_timeout, soak)
    rnicvm.log(f"RnicFabricSuspectTor{{dst_group=tor-b}} fired {t:.0f}s after the loss, "
               f"nothing else for {soak:g}s more")
    rnicvm.signal_guest("uplink-clear")
    rnicvm.wait_guest("uplink-clear-done", timeout=60)
    wait_quiet(prom, fire_timeout, "uplink repaired", lambda a: tor_b(a) or crosses_b(a))
    rnicvm.log("uplink repaired: no alert, nothing else fired meanwhile")

    # 2. Host a2's port loses every packet. In the ToR of four each host
    # probes the next two (a2: a3 and a4; a1 and a4 probe a2), so a2 is
    # named from its pairs at both ends.
    rnicvm.signal_guest("host-loss")
    rnicvm.log(f"loss on {rnicvm.wait_guest('host-loss-on', timeout=60)}")

    def involves_a2(a):
        return (a["labels"]["alertname"] not in SUSPECTS
                and "a2" in (a["labels"].get("exporter"), host_of(a["labels"].get("peer"))))

    def host_a2(a):
        return (a["labels"]["alertname"] == "RnicFabricSuspectHost"
                and host_of(a["labels"].get("peer")) == "a2"
                and a["labels"].get("dst_group") == "tor-a")
    t = watch(prom, host_a2, involves_a2, fire_timeout, soak)
    rnicvm.log(f"RnicFabricSuspectHost{{peer=a2}} fired {t:.0f}s after the loss, "
               f"nothing else for {soak:g}s more")
    rnicvm.signal_guest("host-clear")
    rnicvm.wait_guest("host-clear-done", timeout=60)
    wait_quiet(prom, fire_timeout, "host repaired", lambda a: host_a2(a) or involves_a2(a))
    rnicvm.log("host repaired: no alert, nothing else fired meanwhile")

    # Every rule evaluated without error on the live series.
    bad = [(g["name"], r.get("name"), r.get("lastError"))
           for g in prom._api("rules")["groups"] for r in g["rules"]
           if r.get("health") != "ok"]
    if bad:
        raise rnicvm.CheckFailed(f"rules not healthy: {bad}")


rnicvm.main(run)
