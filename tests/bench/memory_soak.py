#!/usr/bin/env python3
"""Resident memory of rnic_exporter over many scrapes: prints RSS at
intervals; flat means no growth after warm-up. Scraped the way Prometheus
does (one kept-alive connection, gzip: the compressor's buffers count too).

usage: memory_soak.py RNIC_EXPORTER [--scrapes 10000] [exporter flags...]"""
import argparse
import subprocess

from proc_util import Scraper, free_port, rss_kib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exporter")
    ap.add_argument("--scrapes", type=int, default=10000)
    a, flags = ap.parse_known_args()
    a.flags = [f for f in flags if f != "--"]
    port = free_port()
    proc = subprocess.Popen([a.exporter, "--web.listen-address=127.0.0.1:%d" % port] + a.flags,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        scraper = Scraper(port, proc)
        samples = []
        step = max(a.scrapes // 10, 1)
        for i in range(1, a.scrapes + 1):
            scraper.get()
            if i % step == 0 or i == 100:
                samples.append((i, rss_kib(proc.pid)))
                print("scrape %6d  rss %6d KiB" % samples[-1], flush=True)
        after_warmup = [r for i, r in samples if i >= 1000] or [samples[-1][1]]
        print("max rss %.2f MiB; growth after 1000 scrapes: %d KiB"
              % (max(r for _, r in samples) / 1024, max(after_warmup) - min(after_warmup)))
        scraper.close()
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
