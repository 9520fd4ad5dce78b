#!/usr/bin/env python3
"""Whole-process CPU per exported series: rnic_exporter's sysfs collector vs
node_exporter's infiniband collector, side by side in one run, both pointed
at the same sysfs tree with --path.sysfs.

usage: compare_node_exporter.py RNIC_EXPORTER SYSFS_TREE [--scrapes N]
CPU is read from /proc/<pid>/stat (utime+stime) before and after N scrapes
over HTTP on 127.0.0.1, so it includes HTTP handling and serialization."""
import argparse
import os
import subprocess
import sys
import time
import urllib.request

from proc_util import cpu_seconds, free_port, rss_kib

NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"


def wait_up(url):
    for _ in range(300):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except Exception:
            time.sleep(0.05)
    raise RuntimeError("not up: " + url)


def measure(name, cmd, url, prefix, scrapes):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(url)
        body = urllib.request.urlopen(url).read().decode()
        series = sum(1 for l in body.splitlines() if l.startswith(prefix))
        for _ in range(20):  # warm-up
            urllib.request.urlopen(url).read()
        c0 = cpu_seconds(proc.pid)
        t0 = time.monotonic()
        for _ in range(scrapes):
            urllib.request.urlopen(url).read()
        wall = time.monotonic() - t0
        cpu = cpu_seconds(proc.pid) - c0
        rss = rss_kib(proc.pid) * 1024
    finally:
        proc.terminate()
        proc.wait()
    per_scrape = cpu / scrapes
    print("%-14s series=%-6d cpu/scrape=%8.1f us  cpu/series=%7.0f ns  rss=%5.1f MiB  wall/scrape=%.1f us"
          % (name, series, per_scrape * 1e6, per_scrape / max(series, 1) * 1e9,
             rss / 2**20, wall / scrapes * 1e6))
    return per_scrape / max(series, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exporter")
    ap.add_argument("sysfs")
    ap.add_argument("--scrapes", type=int, default=2000)
    a = ap.parse_args()
    if not os.path.exists(NODE_EXPORTER):
        sys.exit("prometheus-node-exporter is not installed (setup.sh installs it)")
    p1, p2 = free_port(), free_port()
    ne = measure("node_exporter",
                 [NODE_EXPORTER, "--web.listen-address=127.0.0.1:%d" % p2,
                  "--path.sysfs=" + a.sysfs, "--collector.disable-defaults",
                  "--collector.infiniband", "--web.disable-exporter-metrics"],
                 "http://127.0.0.1:%d/metrics" % p2, "node_infiniband_", a.scrapes)
    rn = measure("rnic_exporter",
                 [a.exporter, "--web.listen-address=127.0.0.1:%d" % p1,
                  "--path.sysfs=" + a.sysfs, "--collector.disable-defaults",
                  "--collector.sysfs", "--web.disable-exporter-metrics"],
                 "http://127.0.0.1:%d/metrics" % p1, "rnic_", a.scrapes)
    print("ratio rnic/node_exporter CPU per series: %.3f (target <= 0.100)" % (rn / ne))


if __name__ == "__main__":
    main()
