#!/usr/bin/env python3
"""Whole-process CPU per exported series: rnic_exporter's sysfs collector vs
node_exporter's infiniband collector, side by side in one run, both pointed
at the same sysfs tree with --path.sysfs (target: ratio <= 0.15).

usage: compare_node_exporter.py RNIC_EXPORTER SYSFS_TREE [--scrapes N]
           [--blocks B] [--exporter-metrics on|off|both] [--baseline BIN]

Both daemons run at once and are scraped the way Prometheus does: one
kept-alive HTTP/1.1 connection each, with Prometheus' Accept header,
X-Prometheus-Scrape-Timeout-Seconds and Accept-Encoding: gzip. The N scrapes
of each are interleaved in B blocks (rnic, node, rnic, node, ...), so a busy
machine slows both alike. CPU is the process CPU clock (proc_util) summed over
each daemon's own blocks, so HTTP, serialization and gzip are included.
Series are the collector's own: node_infiniband_* and rnic_* (without rnic_'s
scrape/exporter self-metrics); --exporter-metrics on keeps process_* (and
Go's metrics) enabled in both daemons, as a default deployment has them.
--baseline runs another rnic_exporter binary (say, main's) as a third daemon
in the same interleaved blocks: a before/after comparison in one run."""
import argparse
import os
import subprocess
import sys
import time

from proc_util import Scraper, cpu_seconds, free_port, rss_kib

NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"
# rnic_exporter's self-metrics, not the collector's series.
RNIC_SELF = ("rnic_scrape_", "rnic_build_info", "rnic_exporter_")


class Daemon:
    def __init__(self, name, cmd, port, prefix, exclude=()):
        self.name, self.cmd, self.port = name, cmd, port
        self.prefix, self.exclude = prefix, exclude
        self.cpu = 0.0
        self.wall = 0.0
        self.scrapes = 0
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.conn = None

    def connect(self):
        self.conn = Scraper(self.port, self.proc)

    def get(self):
        body = self.conn.get()
        self.encoding, self.wire_bytes = self.conn.encoding, self.conn.wire_bytes
        return body

    def count_series(self):
        text = self.get().decode()
        self.series = sum(1 for l in text.splitlines()
                          if l.startswith(self.prefix)
                          and not l.startswith(self.exclude))
        self.all_series = sum(1 for l in text.splitlines()
                              if l and not l.startswith("#"))

    def block(self, n):
        c0, t0 = cpu_seconds(self.proc.pid), time.monotonic()
        for _ in range(n):
            self.get()
        self.wall += time.monotonic() - t0
        self.cpu += cpu_seconds(self.proc.pid) - c0
        self.scrapes += n

    def stop(self):
        self.rss = rss_kib(self.proc.pid) * 1024
        if self.conn:
            self.conn.close()
        self.proc.terminate()
        self.proc.wait()

    def per_series(self):
        return self.cpu / self.scrapes / max(self.series, 1)

    def report(self):
        per_scrape = self.cpu / self.scrapes
        print("  %-14s series=%-6d (all %-5d) cpu/scrape=%8.1f us  cpu/series=%7.0f ns"
              "  wire=%s %d B  rss=%5.1f MiB  wall/scrape=%.0f us"
              % (self.name, self.series, self.all_series, per_scrape * 1e6,
                 self.per_series() * 1e9, self.encoding, self.wire_bytes,
                 self.rss / 2**20, self.wall / self.scrapes * 1e6))


def run(a, exporter_metrics):
    p1, p2 = free_port(), free_port()
    ne_cmd = [NODE_EXPORTER, "--web.listen-address=127.0.0.1:%d" % p2,
              "--path.sysfs=" + a.sysfs, "--collector.disable-defaults",
              "--collector.infiniband"]
    rn_cmd = [a.exporter, "--web.listen-address=127.0.0.1:%d" % p1,
              "--path.sysfs=" + a.sysfs, "--collector.disable-defaults",
              "--collector.sysfs"]
    if not exporter_metrics:
        ne_cmd.append("--web.disable-exporter-metrics")
        rn_cmd.append("--web.disable-exporter-metrics")
    daemons = []
    try:
        daemons.append(Daemon("rnic_exporter", rn_cmd, p1, "rnic_", RNIC_SELF))
        daemons.append(Daemon("node_exporter", ne_cmd, p2, "node_infiniband_"))
        if a.baseline:
            p3 = free_port()
            base_cmd = [a.baseline, "--web.listen-address=127.0.0.1:%d" % p3] + rn_cmd[2:]
            daemons.append(Daemon("baseline", base_cmd, p3, "rnic_", RNIC_SELF))
        for d in daemons:
            d.connect()
            d.count_series()
            for _ in range(20):  # warm-up: caches, Go's heap, open files
                d.get()
        per_block = max(a.scrapes // a.blocks, 1)
        for _ in range(a.blocks):
            for d in daemons:
                d.block(per_block)
    finally:
        for d in daemons:
            d.stop()
    rn, ne = daemons[:2]
    print("exporter metrics %s, %d scrapes each in %d interleaved blocks:"
          % ("on" if exporter_metrics else "off", rn.scrapes, a.blocks))
    ne.report()
    rn.report()
    ratio = rn.per_series() / ne.per_series()
    print("  ratio rnic/node_exporter CPU per series: %.3f (target <= 0.15)" % ratio)
    if a.baseline:
        base = daemons[2]
        base.report()
        print("  ratio baseline/node_exporter CPU per series: %.3f"
              % (base.per_series() / ne.per_series()))
    return ratio


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("exporter")
    ap.add_argument("sysfs")
    ap.add_argument("--scrapes", type=int, default=2000)
    ap.add_argument("--blocks", type=int, default=20)
    ap.add_argument("--exporter-metrics", choices=("on", "off", "both"),
                    default="both")
    ap.add_argument("--baseline", help="another rnic_exporter binary, run alongside")
    a = ap.parse_args()
    if not os.path.exists(NODE_EXPORTER):
        sys.exit("prometheus-node-exporter is not installed (setup.sh installs it)")
    modes = {"on": [True], "off": [False], "both": [True, False]}[a.exporter_metrics]
    for m in modes:
        run(a, m)


if __name__ == "__main__":
    main()
