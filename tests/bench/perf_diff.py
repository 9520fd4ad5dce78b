#!/usr/bin/env python3
"""Where a default scrape spends more than the kernel floor, symbol by symbol.

Reads the two flat profiles tests/bench/vm_scrape_cost.sh writes with PERF=1
(perf.txt: the default exporter over SCRAPES scrapes; perf-floor.txt:
rnic_floor over ROUNDS rounds), turns each symbol's share into microseconds
of CPU per scrape and per floor round (perf's event count is the CPU time
sampled, in ns), and lists them by difference. Percentages alone hide this:
the two profiles have different totals.

One sample is 1/499 s over 200 scrapes, about 10 us per scrape: rows below
that are noise.

usage: perf_diff.py VM0_DIR [--scrapes N] [--rounds N] [--top N]"""
import argparse
import os
import re

ROW = re.compile(r"\s+([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.+)$")
TOTAL = re.compile(r"Event count \(approx.\): (\d+)")


def load(path, units):
    """{(dso, symbol): microseconds per unit}, and the total per unit."""
    total, rows = None, {}
    with open(path) as f:
        for line in f:
            m = TOTAL.search(line)
            if m:
                total = int(m.group(1))
                continue
            m = ROW.match(line)
            if m and total:
                us = float(m.group(1)) / 100 * total / units / 1e3
                key = (m.group(2), m.group(4).strip())
                rows[key] = rows.get(key, 0.0) + us
    return rows, (total or 0) / units / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--scrapes", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    exp, exp_total = load(os.path.join(a.dir, "perf.txt"), a.scrapes)
    flo, flo_total = load(os.path.join(a.dir, "perf-floor.txt"), a.rounds)
    print("sampled CPU: %.0f us per scrape, %.0f us per floor round"
          % (exp_total, flo_total))
    print("%9s %9s %9s  %-18s %s" % ("scrape", "floor", "more", "dso", "symbol"))
    keys = sorted(set(exp) | set(flo),
                  key=lambda k: -(exp.get(k, 0.0) - flo.get(k, 0.0)))
    for k in keys[:a.top]:
        e, f = exp.get(k, 0.0), flo.get(k, 0.0)
        print("%9.1f %9.1f %9.1f  %-18s %s" % (e, f, e - f, k[0][:18], k[1][:90]))
    print("...")
    for k in keys[-5:]:
        e, f = exp.get(k, 0.0), flo.get(k, 0.0)
        print("%9.1f %9.1f %9.1f  %-18s %s" % (e, f, e - f, k[0][:18], k[1][:90]))


if __name__ == "__main__":
    main()
