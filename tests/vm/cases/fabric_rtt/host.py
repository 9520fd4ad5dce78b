"""The fabric probe's RTT is the path's, as a user reads it: the median that
histogram_quantile() takes from the client's rnic_fabric_rtt_seconds (rxe0 to
the server's rxe0, default settings) over the same minute in which the
client pings the server over the same eth0
1. idle: within 2x ping's median, for send and for write; so are the rounds
   that /probe runs on demand in that minute, and the loopback probe's
   write on rxe0 (a path that never leaves the VM) stays below ping's;
2. with 10 ms of netem delay on the client's eth0: risen by what the path
   gained +-30 %. The gain is ping's median rise over the same minute: netem
   delays on a timer, and a TCG guest on a loaded host fires it late, so
   10 ms of netem has read 10.4-12.5 ms by ping."""

import re
import statistics
import threading
import time

import rnicvm

PAIR = 'vm="client",device="rxe0",remote_device="rxe0"'
OPS = ("send", "write")
LOOPBACK = 'vm="client",device="rxe0",operation="write",size_bytes="64"'


def median(prom, op, window):
    return prom.value(
        f'histogram_quantile(0.5, sum by (le) (increase('
        f'rnic_fabric_rtt_seconds_bucket{{{PAIR},operation="{op}"}}[{window}s])))')


def samples(prom, op, window):
    return prom.value(f'sum(increase(rnic_fabric_rtt_seconds_count{{{PAIR},'
                      f'operation="{op}"}}[{window}s]))')


def on_demand_rounds(stop, out):
    """/probe write rounds from the client to the server, every 10 s."""
    url = (rnicvm.exporter_url("client") +
           "/probe?target=10.0.3.1&device=rxe0&operation=write")
    while not stop.wait(10):
        body = rnicvm.http_get(url, timeout=10)
        m = re.search(r'^rnic_fabric_probe_rtt_seconds\{[^}]*\} (\S+)$', body, re.M)
        if m:
            out.append(float(m.group(1)))


def window_of_ping(prom, tag, extra=None):
    """Asks the client for 60 pings; returns (ping median s, {op: probe median s})."""
    rnicvm.signal_guest(f"ping-{tag}")
    t0 = time.time()
    if extra:
        extra()
    med, lo, hi, n = rnicvm.wait_guest(f"ping-{tag}-done", timeout=120).split()
    # Prometheus scrapes every second: wait for the scrape after the last ping.
    prom.wait_scrapes(2, timeout=30)
    window = int(time.time() - t0)
    out = {}
    for op in OPS:
        count = samples(prom, op, window)
        out[op] = median(prom, op, window)
        rnicvm.log(f"{tag}: {op} probe median {out[op] * 1e3:.3f} ms over {count:.0f} samples "
                   f"in {window} s; ping median {med} ms (min {lo}, max {hi}, n {n})")
        if count < 10:
            raise rnicvm.CheckFailed(f"{tag}: only {count:.0f} {op} samples in {window} s")
    return float(med) / 1e3, out


def run():
    prom = rnicvm.Prometheus()
    for vm in ("server", "client"):
        rnicvm.wait_guest(f"{vm}-up", timeout=300)
    prom.wait_up(count=2, timeout=30)
    prom.wait_value(f'rnic_fabric_peer_up{{{PAIR}}}', lambda v: v == 1, timeout=120)
    prom.wait_value(f'sum(rnic_fabric_rtt_seconds_count{{{PAIR}}})', lambda v: v >= 20,
                    timeout=120)

    rounds, stop = [], threading.Event()
    worker = threading.Thread(target=on_demand_rounds, args=(stop, rounds), daemon=True)
    ping0, idle = window_of_ping(prom, "idle", extra=worker.start)
    stop.set()
    worker.join(timeout=15)
    for op in OPS:
        if not idle[op] <= 2 * ping0:
            raise rnicvm.CheckFailed(f"idle: {op} probe median {idle[op] * 1e3:.3f} ms is more "
                                     f"than twice ping's {ping0 * 1e3:.3f} ms")
    if len(rounds) < 3:
        raise rnicvm.CheckFailed(f"only {len(rounds)} /probe rounds answered in the idle minute")
    on_demand = statistics.median(rounds)
    rnicvm.log(f"idle: /probe write round mean RTT, median of {len(rounds)} rounds "
               f"{on_demand * 1e3:.3f} ms")
    if not on_demand <= 2 * ping0:
        raise rnicvm.CheckFailed(f"idle: /probe median {on_demand * 1e3:.3f} ms is more than "
                                 f"twice ping's {ping0 * 1e3:.3f} ms")
    loopback = prom.value(f'histogram_quantile(0.5, sum by (le) '
                          f'(rnic_probe_latency_seconds_bucket{{{LOOPBACK}}}))')
    count = prom.value(f'sum(rnic_probe_latency_seconds_count{{{LOOPBACK}}})')
    rnicvm.log(f"loopback probe write 64 B on rxe0 (half a round trip): median "
               f"{loopback * 1e3:.3f} ms over {count:.0f} samples")
    if not count or not loopback < ping0:
        raise rnicvm.CheckFailed(f"loopback probe median {loopback * 1e3:.3f} ms is not below "
                                 f"ping's {ping0 * 1e3:.3f} ms across the VMs")

    rnicvm.signal_guest("delay-on")
    rnicvm.wait_guest("delay-is-on", timeout=60)
    # Rounds that began before the delay are out of the next window.
    time.sleep(3)
    ping1, delayed = window_of_ping(prom, "delay")
    gain = ping1 - ping0
    rnicvm.log(f"ping median rose {gain * 1e3:.3f} ms with 10 ms of netem")
    if not 7e-3 <= gain <= 20e-3:
        raise rnicvm.CheckFailed(f"10 ms of netem moved ping's median by {gain * 1e3:.3f} ms")
    for op in OPS:
        rise = delayed[op] - idle[op]
        rnicvm.log(f"delay: {op} probe median rose {rise * 1e3:.3f} ms, ping's {gain * 1e3:.3f} ms")
        if not 0.7 * gain <= rise <= 1.3 * gain:
            raise rnicvm.CheckFailed(f"delay: {op} probe median rose {rise * 1e3:.3f} ms "
                                     f"({idle[op] * 1e3:.3f} -> {delayed[op] * 1e3:.3f}), ping's "
                                     f"{gain * 1e3:.3f} ms: not within +-30 %")

rnicvm.main(run)
