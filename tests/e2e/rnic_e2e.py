"""Helpers for tests that run the real rnic_exporter binary on 127.0.0.1."""
import gzip
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.request

LISTEN_RE = re.compile(r'msg="listening" address=([0-9.]+:[0-9]+)')


class Exporter:
    """Starts rnic_exporter on 127.0.0.1 with a kernel-chosen port."""

    def __init__(self, binary, args, env=None):
        self.log = tempfile.NamedTemporaryFile(prefix="rnic_e2e_", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [binary, "--web.listen-address=127.0.0.1:0"] + list(args),
            stdout=self.log, stderr=self.log, env=env)
        self.address = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = LISTEN_RE.search(self.log_text())
            if m:
                self.address = m.group(1)
                break
            if self.proc.poll() is not None:
                raise RuntimeError("exporter exited rc=%s:\n%s" % (self.proc.returncode, self.log_text()))
            time.sleep(0.02)
        if self.address is None:
            self.stop()
            raise RuntimeError("exporter did not report its address:\n" + self.log_text())
        self.url = "http://" + self.address

    def log_text(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def get(self, path="/metrics", headers=None, method="GET", timeout=30):
        req = urllib.request.Request(self.url + path, headers=headers or {}, method=method)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                body = resp.read()
                return resp.status, dict(resp.headers), body
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def metrics_text(self, headers=None):
        status, hdrs, body = self.get("/metrics", headers)
        if status != 200:
            raise RuntimeError("GET /metrics: %s" % status)
        if hdrs.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        return body.decode("utf-8")

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        os.unlink(self.log.name)


SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_samples(text):
    """Returns [(name, {labels}, value)] of a text-format exposition."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE_RE.match(line)
        if not m:
            raise ValueError("unparsable line: " + line)
        labels = dict(LABEL_RE.findall(m.group(3) or ""))
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def promtool_check(text):
    """Runs `promtool check metrics`; returns (ok, output)."""
    p = subprocess.run(["promtool", "check", "metrics"], input=text.encode(),
                       capture_output=True)
    return p.returncode == 0, (p.stdout + p.stderr).decode()
