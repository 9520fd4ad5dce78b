"""The fabric collector's HTTP side on 127.0.0.1 (no RDMA needed): /probe
refuses targets outside the peer set, /fabric/addresses answers JSON, two
exporters exchange addresses, and peers from a file_sd file are picked up
and dropped when the file changes. The RDMA side is proven in the VM tests."""
import json
import os
import tempfile
import time
import unittest

from rnic_e2e import Exporter, parse_samples

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
# No device selected: the host's own interfaces never enter the test.
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null",
             "--collector.fabric", "--collector.fabric.devices=^no-such-device$"]


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def sample(exp, name, labels=None):
    for n, l, v in parse_samples(exp.metrics_text()):
        if n == name and all(l.get(k) == w for k, w in (labels or {}).items()):
            return v
    return None


def wait_for(fn, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if fn():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class FabricHttpTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def config(self, text):
        path = os.path.join(self.dir.name, "rnic.yml")
        write(path, text)
        return "--config.file=" + path

    def test_probe_refuses_targets_outside_the_peer_set(self):
        with Exporter(BIN, BASE_ARGS + [self.config(
                "fabric: {peers: ['10.255.0.1:9709'], interval: 1s}\n")]) as exp:
            for target in ["8.8.8.8", "127.0.0.1:22", "10.255.0.1:22", "10.255.0.2"]:
                with self.subTest(target=target):
                    status, _, body = exp.get("/probe?target=" + target)
                    self.assertEqual(status, 400)
                    self.assertIn(b"is not in the peer set", body)
            status, _, body = exp.get("/probe")
            self.assertEqual(status, 400)
            self.assertIn(b"missing target parameter", body)
            status, _, body = exp.get("/probe?target=10.255.0.1&module=x")
            self.assertEqual(status, 400)
            self.assertIn(b"unknown parameter 'module'", body)
            self.assertEqual(exp.stop(), 0)

    def test_addresses_and_exchange_between_two_exporters(self):
        with Exporter(BIN, BASE_ARGS) as b:
            status, hdrs, body = b.get("/fabric/addresses")
            self.assertEqual(status, 200)
            self.assertEqual(hdrs["Content-Type"], "application/json")
            doc = json.loads(body)
            self.assertEqual((doc["version"], doc["port"], doc["devices"]),
                             (1, 18530, {}))
            # A random id per process: an exporter recognises itself in a
            # DNS peer set.
            self.assertRegex(doc["id"], "^[0-9a-f]{16}$")
            # A reaches B; the second peer has no exporter: its exchange fails.
            with Exporter(BIN, BASE_ARGS + [self.config(
                    "fabric: {peers: ['%s', '127.0.0.2:1'], interval: 1s}\n"
                    % b.address)]) as a:
                wait_for(lambda: sample(a, "rnic_fabric_address_exchange_failures_total",
                                        {"peer": "127.0.0.2"}) is not None,
                         "an exchange failure")
                self.assertEqual(sample(a, "rnic_fabric_peers"), 2)
                # An on-demand round to a peer: no device pairs here, so it
                # fails, but it runs and answers in the exposition format.
                status, hdrs, body = a.get("/probe?target=" + b.address)
                self.assertEqual(status, 200, body)
                self.assertIn("text/plain; version=0.0.4", hdrs["Content-Type"])
                got = {n: v for n, l, v in parse_samples(body.decode())}
                self.assertEqual(got["rnic_fabric_probe_success"], 0)
                self.assertIn("rnic_fabric_probe_duration_seconds", got)

    def test_file_sd_peers_are_picked_up_and_dropped(self):
        sd = os.path.join(self.dir.name, "peers.json")
        write(sd, json.dumps([{"targets": ["10.255.0.1", "10.255.0.2"],
                               "labels": {"tor": "t1"}}]))
        with Exporter(BIN, BASE_ARGS + [self.config(
                "fabric: {file_sd: %s, refresh_interval: 1s, interval: 200ms}\n"
                % sd)]) as exp:
            wait_for(lambda: sample(exp, "rnic_fabric_peers") == 2, "two peers")
            self.assertEqual(exp.get("/probe?target=10.255.0.2:9709")[0], 200)
            write(sd, json.dumps([{"targets": ["10.255.0.1"]}]))
            wait_for(lambda: sample(exp, "rnic_fabric_peers") == 1, "one peer")
            status, _, body = exp.get("/probe?target=10.255.0.2")
            self.assertEqual(status, 400)
            self.assertIn(b"is not in the peer set", body)
            self.assertEqual(exp.stop(), 0)

    def test_file_sd_turned_oversized_is_refused_with_one_line(self):
        # A runaway file was read after start-up until memory ran out
        # (std::bad_alloc or the OOM killer). At start-up such a file stops
        # the exporter (test_bad_config.py); at run time it costs one log
        # line and the peers of the last good version stay.
        sd = os.path.join(self.dir.name, "peers.json")
        write(sd, json.dumps([{"targets": ["10.255.0.1", "10.255.0.2"]}]))
        with Exporter(BIN, BASE_ARGS + [self.config(
                "fabric: {file_sd: [%s], refresh_interval: 1s,"
                " interval: 200ms}\n" % sd)]) as exp:
            wait_for(lambda: sample(exp, "rnic_fabric_peers") == 2, "two peers")
            with open(sd, "wb") as f:
                f.truncate(64 << 20)
            wait_for(lambda: sd + ": larger than" in exp.log_text(), "the refusal")
            self.assertEqual(sample(exp, "rnic_fabric_peers"), 2)
            # A second refresh cycle seen from outside before counting lines.
            write(sd, json.dumps([{"targets": ["10.255.0.1"]}]))
            wait_for(lambda: sample(exp, "rnic_fabric_peers") == 1, "one peer")
            log = exp.log_text()
            self.assertEqual(exp.stop(), 0)
        self.assertEqual(log.count(sd + ": larger than"), 1, log)

if __name__ == "__main__":
    unittest.main()
