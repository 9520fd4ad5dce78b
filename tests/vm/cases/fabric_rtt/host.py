"""The fabric probe's RTT is the path's, as a user reads it: the median that
histogram_quantile() takes from the client's rnic_fabric_rtt_seconds (a
user's settings, unpaced: fabric.yml) over the same minute in which the
client pings the server:
1. idle: rxe0 to the server's rxe0 within 2x ping's median over eth0, for
   send and for write; the rounds /probe runs on demand in that minute
   (their mean RTT) within 2x ping's mean; and the loopback probe's write
   on rxe0 (a path that never leaves the VM) stays below ping's median;
2. with 10 ms of netem delay on the client's eth0: the median over rxe0 less
   that over rxe2 (eth2, no delay, same minute) rises by 10 ms +-30 % (or
   by ping's rise over eth0 less eth2 +-30 %, on a loaded host). The
   reference path measured at the same time cancels what a loaded host does
   to both paths in one minute and not in the other."""

import re
import statistics
import threading
import time

import rnicvm

PAIRS = {0: 'vm="client",device="rxe0",remote_device="rxe0"',
         2: 'vm="client",device="rxe2",remote_device="rxe2"'}
OPS = ("send", "write")
LOOPBACK = 'vm="client",device="rxe0",operation="write",size_bytes="64"'


def median(prom, pair, op, window):
    return prom.value(
        f'histogram_quantile(0.5, sum by (le) (increase('
        f'rnic_fabric_rtt_seconds_bucket{{{pair},operation="{op}"}}[{window}s])))')


def samples(prom, pair, op, window):
    return prom.value(f'sum(increase(rnic_fabric_rtt_seconds_count{{{pair},'
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
    """Asks the client for a minute of pings; returns ping's medians (s) over
    eth0 and eth2 and the probe's {(path, op): median s}."""
    rnicvm.signal_guest(f"ping-{tag}")
    t0 = time.time()
    if extra:
        extra()
    med0, lo, hi, n, mean0, med2 = rnicvm.wait_guest(f"ping-{tag}-done", timeout=120).split()
    # Prometheus scrapes every second: wait for the scrape after the last ping.
    prom.wait_scrapes(2, timeout=30)
    window = int(time.time() - t0)
    rnicvm.log(f"{tag}: ping median eth0 {med0} ms (min {lo}, max {hi}, n {n}, mean {mean0}), "
               f"eth2 {med2} ms")
    out = {}
    for path, pair in PAIRS.items():
        for op in OPS:
            count = samples(prom, pair, op, window) or 0
            if count < 10:
                raise rnicvm.CheckFailed(f"{tag}: only {count:.0f} rxe{path} {op} samples "
                                         f"in {window} s")
            out[path, op] = median(prom, pair, op, window)
            rnicvm.log(f"{tag}: rxe{path} {op} probe median {out[path, op] * 1e3:.3f} ms over "
                       f"{count:.0f} samples in {window} s")
    return float(med0) / 1e3, float(med2) / 1e3, float(mean0) / 1e3, out


def run():
    prom = rnicvm.Prometheus()
    for vm in ("server", "client"):
        rnicvm.wait_guest(f"{vm}-up", timeout=300)
    prom.wait_up(count=2, timeout=30)
    for pair in PAIRS.values():
        prom.wait_value(f'rnic_fabric_peer_up{{{pair}}}', lambda v: v == 1, timeout=120)
        prom.wait_value(f'sum(rnic_fabric_rtt_seconds_count{{{pair}}})', lambda v: v >= 20,
                        timeout=120)

    # 1. Idle.
    rounds, stop = [], threading.Event()
    worker = threading.Thread(target=on_demand_rounds, args=(stop, rounds), daemon=True)
    ping0, ping2, ping0_mean, idle = window_of_ping(prom, "idle", extra=worker.start)
    stop.set()
    worker.join(timeout=15)
    for op in OPS:
        if not idle[0, op] <= 2 * ping0:
            raise rnicvm.CheckFailed(f"idle: {op} probe median {idle[0, op] * 1e3:.3f} ms is "
                                     f"more than twice ping's {ping0 * 1e3:.3f} ms")
    if len(rounds) < 3:
        raise rnicvm.CheckFailed(f"only {len(rounds)} /probe rounds answered in the idle minute")
    on_demand = statistics.median(rounds)
    rnicvm.log(f"idle: /probe write round mean RTT, median of {len(rounds)} rounds "
               f"{on_demand * 1e3:.3f} ms")
    # A round's mean takes in every stall of the host during the round, as
    # ping's mean does over the minute (a loaded host stalls both for tens of
    # ms): mean against mean. A wait of fixed length inside each round trip
    # would still put the rounds far above ping's.
    if not on_demand <= 2 * ping0_mean:
        raise rnicvm.CheckFailed(f"idle: /probe median {on_demand * 1e3:.3f} ms is more than "
                                 f"twice ping's mean {ping0_mean * 1e3:.3f} ms")
    # The last values scraped: on a loaded host the probe collector can miss
    # Prometheus' 1 s deadline, and a failed collector's series go stale.
    loopback = prom.value(f'histogram_quantile(0.5, sum by (le) (last_over_time('
                          f'rnic_probe_latency_seconds_bucket{{{LOOPBACK}}}[5m])))')
    count = prom.value(f'sum(last_over_time(rnic_probe_latency_seconds_count{{{LOOPBACK}}}[5m]))')
    if loopback is None or not count:
        raise rnicvm.CheckFailed("no loopback probe samples in Prometheus")
    rnicvm.log(f"loopback probe write 64 B on rxe0 (half a round trip): median "
               f"{loopback * 1e3:.3f} ms over {count:.0f} samples")
    if not loopback < ping0:
        raise rnicvm.CheckFailed(f"loopback probe median {loopback * 1e3:.3f} ms is not below "
                                 f"ping's {ping0 * 1e3:.3f} ms across the VMs")

    # 2. 10 ms of delay on eth0; eth2 is the reference measured alongside.
    rnicvm.signal_guest("delay-on")
    rnicvm.wait_guest("delay-is-on", timeout=60)
    time.sleep(3)  # rounds that began before the delay stay out of the window
    dping0, dping2, _, delayed = window_of_ping(prom, "delay")
    gain = (dping0 - dping2) - (ping0 - ping2)
    rnicvm.log(f"ping: eth0 less eth2 rose {gain * 1e3:.3f} ms with 10 ms of netem")
    for op in OPS:
        rise = (delayed[0, op] - delayed[2, op]) - (idle[0, op] - idle[2, op])
        rnicvm.log(f"delay: {op} probe median, rxe0 less rxe2, rose {rise * 1e3:.3f} ms")
        # Within 30 % of the delay added, or of the rise ping saw over the
        # same minute: a host loaded enough to stretch ping's rise (18 ms for
        # 10 ms of netem at a load average of 15 on 2 cores) stretches the
        # probe's alike. A wait of fixed length absorbs the delay: no rise.
        if not any(0.7 * ref <= rise <= 1.3 * ref for ref in (10e-3, gain)):
            raise rnicvm.CheckFailed(f"delay: {op} probe median (rxe0 less rxe2) rose "
                                     f"{rise * 1e3:.3f} ms, not 10 ms +-30 % nor ping's "
                                     f"{gain * 1e3:.3f} ms +-30 %")


rnicvm.main(run)
