"""Host-side helpers for VM test cases (tests/vm/cases/*/host.py).

run-case.sh puts this directory on PYTHONPATH and describes the run in
environment variables; everything here reads them. Standard library only.

    import rnicvm
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("exporter-up")
    v = prom.wait_value('rnic_hw_sent_pkts_total{device="rxe0"}', lambda v: v > 0)
    rnicvm.signal_guest("done")
"""

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class CheckFailed(Exception):
    """A host-side assertion failed; the message says what and why."""


def env(name):
    value = os.environ.get(name)
    if value is None:
        raise CheckFailed(f"{name} is not set: run this through tests/vm/run-case.sh")
    return value


def log(msg):
    print(f"host[{time.strftime('%H:%M:%S')}]: {msg}", flush=True)


def deadline():
    """The case's hard deadline (epoch seconds)."""
    return float(env("RNIC_VM_DEADLINE"))


def exporter_url(vm=None):
    """Forwarded exporter base URL of VM `vm` (default: the first VM)."""
    if vm is None:
        return env("RNIC_VM_EXPORTER_URL")
    return env("RNIC_VM_EXPORTER_URL_" + vm.upper())


def _sync_path(name):
    return os.path.join(env("RNIC_VM_SYNC_DIR"), name)


def signal_guest(name, content=""):
    """Create marker `name`; guest scripts wait for it with `wait_for name`."""
    path = _sync_path(name)
    with open(path + ".tmp", "w") as f:
        f.write(content)
    os.rename(path + ".tmp", path)


def wait_guest(name, timeout=120):
    """Wait for the guest's `signal name`; returns the marker's content."""
    path = _sync_path(name)
    end = min(time.time() + timeout, deadline())
    while time.time() < end:
        if os.path.exists(path):
            with open(path) as f:
                return f.read().strip()
        time.sleep(0.2)
    raise CheckFailed(f"guest never signalled '{name}' within {timeout}s")


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


class Prometheus:
    """The run's Prometheus server (RNIC_VM_PROM_URL)."""

    def __init__(self, url=None):
        self.url = url or env("RNIC_VM_PROM_URL")

    def _api(self, path, **params):
        url = f"{self.url}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            body = json.loads(http_get(url))
        except urllib.error.HTTPError as e:  # 400 carries the PromQL error
            body = json.loads(e.read().decode())
        if body.get("status") != "success":
            raise CheckFailed(f"{path} {params}: {body.get('error', body)}")
        return body["data"]

    def query(self, expr):
        """Instant query -> list of (labels dict, float value)."""
        data = self._api("query", query=expr)
        if data["resultType"] == "scalar":
            return [({}, float(data["result"][1]))]
        return [(s["metric"], float(s["value"][1])) for s in data["result"]]

    def value(self, expr):
        """The single value of `expr`, or None when it has no result."""
        result = self.query(expr)
        if len(result) > 1:
            raise CheckFailed(f"{expr}: expected one series, got {len(result)}: {result}")
        return result[0][1] if result else None

    def alerts(self):
        """Active alerts: list of dicts (labels, annotations, state, ...)."""
        return self._api("alerts")["alerts"]

    def targets(self):
        return self._api("targets")["activeTargets"]

    def wait(self, what, check, timeout=30, interval=0.5):
        """Poll check() until it returns a truthy value (returned) or fail.

        `what` describes the awaited condition for the failure message; the
        last value check() returned is included too."""
        end = min(time.time() + timeout, deadline())
        last = None
        while True:
            last = check()
            if last:
                return last
            if time.time() >= end:
                raise CheckFailed(f"timed out after {timeout}s waiting for {what}; last: {last!r}")
            time.sleep(interval)

    def wait_value(self, expr, pred, timeout=30):
        """Wait until `expr` has one value v with pred(v); returns v."""
        def check():
            v = self.value(expr)
            return (v,) if v is not None and pred(v) else None
        return self.wait(f"{expr} to satisfy the condition", check, timeout)[0]

    def wait_present(self, expr, timeout=30):
        """Wait until `expr` returns at least one series; returns them."""
        return self.wait(f"{expr} to have series", lambda: self.query(expr), timeout)

    def wait_absent(self, expr, timeout=30):
        """Wait until `expr` returns no series."""
        self.wait(f"{expr} to have no series", lambda: not self.query(expr), timeout)

    def wait_alert(self, name, state="firing", timeout=60):
        """Wait until alert `name` is in `state`; returns its alert dicts."""
        def check():
            return [a for a in self.alerts()
                    if a["labels"].get("alertname") == name and a["state"] == state]
        return self.wait(f"alert {name} {state}", check, timeout)

    def wait_alerts_fire(self, names, labels, timeout=120):
        """Wait until each alert in `names` whose labels include `labels`
        has been seen pending and then firing. One poll loop (0.5 s) watches
        them all: pending lasts an alert's `for`, so none passes unseen."""
        seen = {name: set() for name in names}

        def check():
            for a in self.alerts():
                name = a["labels"].get("alertname")
                if name in seen and all(a["labels"].get(k) == v for k, v in labels.items()):
                    if a["state"] not in seen[name]:
                        log(f"{name} {a['state']}: {a['labels']}")
                    seen[name].add(a["state"])
            return all(s == {"pending", "firing"} for s in seen.values())
        self.wait(f"{', '.join(names)} {labels} pending, then firing", check,
                  timeout, interval=0.5)

    def wait_alert_resolved(self, name, timeout=60):
        """Wait until alert `name` is no longer active."""
        self.wait(f"alert {name} resolved",
                  lambda: not [a for a in self.alerts()
                               if a["labels"].get("alertname") == name], timeout)
        log(f"{name} resolved")

    def wait_up(self, timeout=60, count=1):
        """Wait until `count` targets are up (the exporter(s) scraped)."""
        return self.wait_value('sum(up{job="rnic"})', lambda v: v >= count, timeout)

    def wait_scrapes(self, n=2, timeout=30):
        """Wait until every target has completed `n` more scrapes."""
        seen = {}  # scrape URL -> distinct lastScrape times since the call
        def check():
            for t in self.targets():
                seen.setdefault(t["scrapeUrl"], {t["lastScrape"]}).add(t["lastScrape"])
            return seen and all(len(s) > n for s in seen.values())
        self.wait(f"{n} more scrapes of every target", check, timeout, interval=0.2)

def main(fn):
    """Run fn() as the host side of a case: exit 0 on success, 1 on failure."""
    try:
        fn()
    except CheckFailed as e:
        log(f"FAIL: {e}")
        sys.exit(1)
    log("PASS")
    sys.exit(0)
