#!/usr/bin/env python3
"""Scrapes and health checks under hostile clients: header tricklers (send a
request one byte a second and never finish it, reconnecting when cut off)
and non-readers (send GET /metrics on a kept-alive connection, another one
every few seconds, and never read an answer). Meanwhile one Prometheus-like
scraper (one kept-alive gzip connection, --interval, --timeout) and a health
prober (a new connection to /-/healthy every second) count what succeeds.
They connect from 127.0.0.1; the hostile clients from other loopback
addresses, --hostile-sources of them (1: one hostile host, which the
exporter's per-client limit caps; 400: a host each, which it does not).

usage: slow_clients.py RNIC_EXPORTER [--tricklers 200] [--non-readers 200]
                       [--hostile-sources 1] [--seconds 180] [--interval 15]
                       [--timeout 10] [exporter flags...]
Prints one summary line: scrapes that succeeded within the timeout, and
/-/healthy answers within 1 s with their latency percentiles. A figure,
not a test: exits 0 unless the exporter died."""
import argparse
import http.client
import selectors
import socket
import threading
import time

from proc_util import PROM_HEADERS, percentile, rss_kib, start_exporter


def source_address(i, sources):
    """The i-th hostile client's address: 127.1.0.1, 127.1.0.2, ..."""
    n = i % sources
    return "127.1.%d.%d" % (n // 250, n % 250 + 1)


def attackers(port, tricklers, non_readers, sources, stop, counts):
    """One thread drives every hostile socket (no thread per client)."""
    sel = selectors.DefaultSelector()
    trickle_req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4096
    full_req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n"
    socks = {}  # socket -> [kind, position or next send time, source]

    def connect(kind, source):
        try:
            s = socket.socket()
            s.setblocking(False)
            s.bind((source, 0))
            s.connect_ex(("127.0.0.1", port))
        except OSError:
            return
        # A non-reader's receive buffer stays small: the server's writes block.
        if kind == "non-reader":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        socks[s] = [kind, 0, source]
        counts[kind + " connections"] += 1

    def drop(s):
        kind, _, source = socks.pop(s)
        s.close()
        connect(kind, source)

    for i in range(tricklers):
        connect("trickler", source_address(i, sources))
    for i in range(non_readers):
        connect("non-reader", source_address(tricklers + i, sources))
    while not stop.is_set():
        now = time.monotonic()
        for s in list(socks):
            kind, state, _ = socks[s]
            try:
                if kind == "trickler":
                    if state >= len(trickle_req):
                        state = 0  # never ends its headers: start the pad again
                    s.send(trickle_req[state:state + 1])
                    socks[s][1] = state + 1
                elif now >= state:
                    s.send(full_req)
                    socks[s][1] = now + 5
            except BlockingIOError:
                pass  # still connecting, or its send buffer is full
            except OSError:
                drop(s)  # cut off by the server: come back
        stop.wait(1)
    for s in socks:
        s.close()


def scraper(port, interval, timeout, stop, results):
    conn = None
    next_at = time.monotonic()
    while not stop.is_set():
        stop.wait(max(0.0, next_at - time.monotonic()))
        if stop.is_set():
            break
        next_at += interval
        t0 = time.monotonic()
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            conn.request("GET", "/metrics", headers=PROM_HEADERS)
            r = conn.getresponse()
            r.read()
            ok = r.status == 200 and time.monotonic() - t0 <= timeout
        except (OSError, http.client.HTTPException):
            ok = False
        if not ok and conn is not None:
            conn.close()
            conn = None
        results.append((ok, time.monotonic() - t0))


def health(port, stop, results):
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            c.request("GET", "/-/healthy")
            r = c.getresponse()
            r.read()
            c.close()
            ok = r.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
        dt = time.monotonic() - t0
        results.append((ok and dt <= 1, dt))
        stop.wait(max(0.0, 1 - dt))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exporter")
    ap.add_argument("--tricklers", type=int, default=200)
    ap.add_argument("--non-readers", type=int, default=200)
    ap.add_argument("--hostile-sources", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--interval", type=float, default=15)
    ap.add_argument("--timeout", type=float, default=10)
    a, flags = ap.parse_known_args()
    port, proc = start_exporter(a.exporter, flags)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    stop = threading.Event()
    counts = {"trickler connections": 0, "non-reader connections": 0}
    scrapes, checks = [], []
    threads = [
        threading.Thread(target=attackers, daemon=True,
                         args=(port, a.tricklers, a.non_readers, a.hostile_sources,
                               stop, counts)),
        threading.Thread(target=scraper, daemon=True,
                         args=(port, a.interval, a.timeout, stop, scrapes)),
        threading.Thread(target=health, daemon=True, args=(port, stop, checks)),
    ]
    for t in threads:
        t.start()
    rss = []
    end = time.monotonic() + a.seconds
    while time.monotonic() < end and proc.poll() is None:
        time.sleep(1)
        rss.append(rss_kib(proc.pid))
    died = proc.poll() is not None
    stop.set()
    for t in threads:
        t.join(15)
    proc.terminate()
    proc.wait()
    good = sum(ok for ok, _ in scrapes)
    healthy = sum(ok for ok, _ in checks)
    print("tricklers %d non-readers %d from %d addresses, seconds %.0f: scrapes %d/%d succeeded (%.1f %%), "
          "latency p50 %.2f s max %.2f s; /-/healthy within 1 s %d/%d (%.1f %%), "
          "p50 %.3f s p99 %.3f s max %.3f s; hostile connections %d; RSS max %d KiB%s"
          % (a.tricklers, a.non_readers, a.hostile_sources, a.seconds, good, len(scrapes),
             100.0 * good / max(len(scrapes), 1), percentile([d for _, d in scrapes], 50),
             max([d for _, d in scrapes] or [float("nan")]), healthy, len(checks),
             100.0 * healthy / max(len(checks), 1), percentile([d for _, d in checks], 50),
             percentile([d for _, d in checks], 99), max([d for _, d in checks] or [float("nan")]),
             sum(counts.values()), max(rss or [0]), "; THE EXPORTER DIED" if died else ""))
    return 1 if died else 0


if __name__ == "__main__":
    raise SystemExit(main())
