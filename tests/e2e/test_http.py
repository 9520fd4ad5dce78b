"""The real binary over real HTTP on 127.0.0.1: formats, headers, endpoints,
flag errors and shutdown."""
import http.client
import os
import re
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from rnic_e2e import Exporter, parse_samples, promtool_check

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null"]


class HttpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exp = Exporter(BIN, BASE_ARGS)

    @classmethod
    def tearDownClass(cls):
        cls.exp.stop()

    def test_text_format_passes_promtool(self):
        status, headers, body = self.exp.get("/metrics")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8")
        ok, out = promtool_check(body.decode())
        self.assertTrue(ok, out)
        names = {s[0] for s in parse_samples(body.decode())}
        self.assertIn("rnic_build_info", names)
        self.assertIn("rnic_scrape_collector_success", names)
        self.assertIn("process_resident_memory_bytes", names)

    def test_head_has_headers_and_no_body(self):
        status, headers, body = self.exp.get("/metrics", method="HEAD")
        self.assertEqual(status, 200)
        self.assertEqual(body, b"")
        self.assertTrue(headers["Content-Type"].startswith("text/plain; version=0.0.4"))

    def test_gzip(self):
        status, headers, body = self.exp.get("/metrics", {"Accept-Encoding": "gzip"})
        self.assertEqual(headers.get("Content-Encoding"), "gzip")
        self.assertEqual(body[:2], b"\x1f\x8b")
        text = self.exp.metrics_text({"Accept-Encoding": "gzip"})
        self.assertIn("rnic_build_info", text)
        status, headers, body = self.exp.get("/metrics", {"Accept-Encoding": "gzip;q=0"})
        self.assertNotIn("Content-Encoding", headers)

    def test_openmetrics_when_asked(self):
        accept = ("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
                  "text/plain;version=0.0.4;q=0.2,*/*;q=0.1")
        status, headers, body = self.exp.get("/metrics", {"Accept": accept})
        self.assertEqual(headers["Content-Type"],
                         "application/openmetrics-text; version=1.0.0; charset=utf-8")
        text = body.decode()
        self.assertTrue(text.endswith("# EOF\n"))
        self.assertIn("# TYPE process_cpu_seconds counter\n", text)

    def test_landing_health_ready_404(self):
        status, headers, body = self.exp.get("/")
        self.assertEqual(status, 200)
        self.assertIn(b'href="/metrics"', body)
        self.assertEqual(self.exp.get("/-/healthy")[0], 200)
        self.assertEqual(self.exp.get("/-/ready")[0], 200)
        self.assertEqual(self.exp.get("/nonexistent")[0], 404)

    def test_scrape_timeout_header_is_accepted(self):
        status, _, body = self.exp.get("/metrics", {"X-Prometheus-Scrape-Timeout-Seconds": "2.5"})
        self.assertEqual(status, 200)
        for name, labels, value in parse_samples(body.decode()):
            if name == "rnic_scrape_collector_duration_seconds":
                self.assertLess(value, 2.5)


def run_binary(args):
    return subprocess.run([BIN] + args, capture_output=True, text=True, timeout=30)


class Ipv6Test(unittest.TestCase):
    def test_serves_on_a_bracketed_ipv6_address(self):
        try:
            with socket.socket(socket.AF_INET6) as s:
                s.bind(("::1", 0))
        except OSError:
            self.skipTest("no IPv6 loopback here")
        with Exporter(BIN, BASE_ARGS + ["--web.listen-address=[::1]:0"]) as e:
            m = re.search(r'msg="listening" address=\[::1\]:([0-9]+)', e.log_text())
            self.assertIsNotNone(m, e.log_text())
            c = http.client.HTTPConnection("::1", int(m.group(1)), timeout=30)
            c.request("GET", "/-/healthy")
            self.assertEqual(c.getresponse().status, 200)
            c.close()


class StartupErrorTest(unittest.TestCase):
    def assert_fails_naming(self, args, needle):
        p = run_binary(args)
        # 2: refused with a message; never an abort (134) or a crash.
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(needle, p.stderr)

    def test_bad_flags_stop_startup_with_their_name(self):
        self.assert_fails_naming(["--no-such-flag"], "--no-such-flag")
        self.assert_fails_naming(["--collector.nonexistent"], "nonexistent")
        self.assert_fails_naming(["--log.level=chatty"], "--log.level")
        self.assert_fails_naming(["--web.listen-address=[::zz]:0"], "IPv6")
        self.assert_fails_naming(["--web.listen-address=127.0.0.1:99999"], "bad port")
        # Too many digits for any integer: refused, not an uncaught exception.
        self.assert_fails_naming(
            ["--web.listen-address=:99999999999999999999"], "bad port")

    def test_bad_collector_option_values_stop_startup(self):
        # Each value is checked against its option's type at start-up, also for
        # a disabled collector; the message names the flag, the value and the
        # accepted form, and nothing is served.
        cases = [
            (["--collector.netlink_stat.qp-counters=maybe"],
             "--collector.netlink_stat.qp-counters=maybe: not a boolean (true/false)"),
            (["--no-collector.netlink_resource", "--collector.netlink_resource.max-comms", "-3"],
             "--collector.netlink_resource.max-comms=-3: not an integer >= 0"),
            (["--collector.sysfs.device-include=mlx5_(["],
             "--collector.sysfs.device-include=mlx5_([: not a valid regular expression"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                p = run_binary(BASE_ARGS + ["--web.listen-address=127.0.0.1:0"] + args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("rnic_exporter: error: " + message, p.stderr)
                self.assertNotIn("listening", p.stderr)

    def test_bad_config_file_stops_startup(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write("not_a_collector:\n  x: 1\n")
        try:
            self.assert_fails_naming(["--config.file=" + f.name], "not_a_collector")
        finally:
            os.unlink(f.name)
        self.assert_fails_naming(["--config.file=/nonexistent.yml"], "/nonexistent.yml")

    def test_port_in_use_is_reported(self):
        with Exporter(BIN, BASE_ARGS) as first:
            self.assert_fails_naming(["--web.listen-address=" + first.address], "cannot listen")

    def test_help_and_version(self):
        p = run_binary(["--help"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("--web.listen-address", p.stdout)
        p = run_binary(["--version"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("rnic_exporter version", p.stdout)


class ShutdownTest(unittest.TestCase):
    def test_sigterm_during_scrapes_exits_zero(self):
        exp = Exporter(BIN, BASE_ARGS)
        results = []

        def scrape():
            try:
                results.append(exp.get("/metrics")[0])
            except Exception as e:  # connection refused after shutdown is fine
                results.append(repr(e))

        threads = [threading.Thread(target=scrape) for _ in range(8)]
        for t in threads:
            t.start()
        time.sleep(0.01)
        rc = exp.stop()
        for t in threads:
            t.join()
        self.assertEqual(rc, 0, exp.log_text())
        self.assertIn('msg="stopped"', exp.log_text())
        # Every scrape that got an answer got a whole one.
        for r in results:
            if isinstance(r, int):
                self.assertEqual(r, 200)

    def test_sigint_exits_zero(self):
        import signal
        exp = Exporter(BIN, BASE_ARGS)
        self.assertEqual(exp.stop(signal.SIGINT), 0)


if __name__ == "__main__":
    unittest.main()
