"""Small helpers shared by the whole-process benchmarks."""
import gzip
import http.client
import os
import socket
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    """A free TCP port on 127.0.0.1 (the kernel picks it)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_exporter(exporter, flags):
    """(port, process) of `exporter` on a free 127.0.0.1 port with `flags`
    (a bare "--" among them, argparse's separator, dropped), output discarded."""
    port = free_port()
    proc = subprocess.Popen(
        [exporter, "--web.listen-address=127.0.0.1:%d" % port]
        + [f for f in flags if f != "--"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return port, proc


def percentile(vals, p):
    """The p-th percentile (nearest rank) of vals, NaN when empty."""
    vals = sorted(vals)
    if not vals:
        return float("nan")
    return vals[min(len(vals) - 1, int(p / 100.0 * len(vals)))]


def cpu_seconds(pid):
    """CPU time of a process, every thread, alive or exited.

    Read from its CPU clock in nanoseconds (Linux names it ((~pid) << 3) | 2,
    what clock_getcpuclockid returns); /proc/<pid>/stat has the same total in
    10 ms ticks only, used if the clock cannot be read."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK


def rss_kib(pid):
    """VmRSS of a process in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# What Prometheus 2.42 (Debian 12) sends with every scrape.
PROM_HEADERS = {
    "User-Agent": "Prometheus/2.42.0",
    "Accept": "application/openmetrics-text;version=1.0.0,"
              "application/openmetrics-text;version=0.0.1;q=0.75,"
              "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    "Accept-Encoding": "gzip",
    "X-Prometheus-Scrape-Timeout-Seconds": "10",
}


class Scraper:
    """Scrapes one target the way Prometheus does: one kept-alive HTTP/1.1
    connection, Prometheus' headers, gzip. A server that drops the connection
    is an error, not a silent reconnect."""

    def __init__(self, port, proc=None, path="/metrics"):
        self.path = path
        for _ in range(300):
            if proc is not None and proc.poll() is not None:
                raise RuntimeError("the exporter exited during start-up")
            try:
                self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                self.conn.connect()
                self.get()
                return
            except (ConnectionError, OSError):
                time.sleep(0.05)
        raise RuntimeError("nothing answers on 127.0.0.1:%d" % port)

    def get(self):
        """One scrape; the decoded body (bytes). Sets encoding, wire_bytes."""
        sock = self.conn.sock
        self.conn.request("GET", self.path, headers=PROM_HEADERS)
        r = self.conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError("HTTP %d" % r.status)
        if self.conn.sock is None or self.conn.sock is not sock:
            raise RuntimeError("the server closed the kept-alive connection")
        self.encoding = r.getheader("Content-Encoding", "identity")
        self.wire_bytes = len(body)
        return gzip.decompress(body) if self.encoding == "gzip" else body

    def close(self):
        self.conn.close()
