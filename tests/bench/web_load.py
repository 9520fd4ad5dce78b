#!/usr/bin/env python3
"""Many scrapers at once, plus slow clients: errors, latency percentiles and
RSS over the run. Each scraper is a Prometheus-like client (one kept-alive
connection, gzip); each slow client trickles a request one byte at a time and
never finishes it, holding a connection the whole run.

usage: web_load.py RNIC_EXPORTER [--scrapers 50] [--slow 10] [--seconds 60]
                   [exporter flags...]
Prints one summary line; exits 1 on any failed scrape or on RSS growth above
--max-growth-kib between the first and the last quarter of the run."""
import argparse
import socket
import threading
import time

from proc_util import Scraper, percentile, rss_kib, start_exporter


def slow_client(port, stop):
    """Sends a GET one byte a second and never ends its headers."""
    req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4096
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            stop.wait(1)
            continue
        try:
            for b in req:
                if stop.is_set():
                    break
                s.sendall(bytes([b]))
                stop.wait(1)
        except OSError:
            pass  # the server timed the connection out: start another
        finally:
            s.close()


def scraper_loop(port, proc, stop, lat, errors, lock):
    try:
        sc = Scraper(port, proc)
    except RuntimeError as e:
        with lock:
            errors.append("connect: %s" % e)
        return
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            sc.get()
        except Exception as e:  # noqa: BLE001 - every failure is counted
            with lock:
                errors.append(str(e))
            sc.close()
            try:
                sc = Scraper(port, proc)
            except RuntimeError:
                return
            continue
        with lock:
            lat.append(time.monotonic() - t0)
    sc.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exporter")
    ap.add_argument("--scrapers", type=int, default=50)
    ap.add_argument("--slow", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--max-growth-kib", type=int, default=1024)
    a, flags = ap.parse_known_args()
    port, proc = start_exporter(a.exporter, flags)
    stop = threading.Event()
    lat, errors, lock = [], [], threading.Lock()
    threads = []
    try:
        Scraper(port, proc).close()  # up and serving
        for _ in range(a.slow):
            threads.append(threading.Thread(target=slow_client, args=(port, stop), daemon=True))
        for _ in range(a.scrapers):
            threads.append(threading.Thread(
                target=scraper_loop, args=(port, proc, stop, lat, errors, lock), daemon=True))
        for t in threads:
            t.start()
        rss = []
        end = time.monotonic() + a.seconds
        while time.monotonic() < end:
            time.sleep(1)
            if proc.poll() is not None:
                errors.append("the exporter exited")
                break
            rss.append(rss_kib(proc.pid))
        stop.set()
        for t in threads:
            t.join(10)
        hung = sum(t.is_alive() for t in threads[a.slow:])
        if hung:
            errors.append("%d scrapers still waiting for an answer at the end" % hung)
    finally:
        proc.terminate()
        proc.wait()
    lat.sort()
    q = max(len(rss) // 4, 1)
    growth = max(rss[-q:]) - max(rss[:q]) if rss else 0
    print("scrapers %d slow %d seconds %.0f: %d scrapes, %d errors; latency p50 %.1f ms "
          "p99 %.1f ms max %.1f ms; RSS %d..%d KiB (last quarter vs first: %+d KiB)"
          % (a.scrapers, a.slow, a.seconds, len(lat), len(errors), percentile(lat, 50) * 1e3,
             percentile(lat, 99) * 1e3, (lat[-1] if lat else float("nan")) * 1e3,
             min(rss or [0]), max(rss or [0]), growth))
    for e in sorted(set(errors))[:10]:
        print("error:", e)
    return 1 if errors or growth > a.max_growth_kib else 0


if __name__ == "__main__":
    raise SystemExit(main())
