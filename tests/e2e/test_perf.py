"""perf collector through the real binary, on this host's real PMUs: a
configured event that exists counts up, one whose PMU is missing costs only
itself, and a bad config stops start-up naming the key."""
import os
import subprocess
import tempfile
import time
import unittest

from rnic_e2e import Exporter, parse_samples, promtool_check

BIN = os.environ["RNIC_EXPORTER"]


def write_config(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False)
    f.write(text)
    f.close()
    return f.name


class PerfTest(unittest.TestCase):
    def test_real_pmus_and_missing_pmu(self):
        if not os.path.exists("/sys/bus/event_source/devices/software"):
            self.skipTest("no perf software PMU")
        cfg = write_config(
            "perf:\n  events:\n"
            "    - {pmu: software, event: 'config=0', name: cpu_clock_ns}\n"
            "    - {pmu: uncore_iio_nonexistent, event: 'event=0x83,umask=0x04', name: pcie_read, scale: 4}\n")
        try:
            with Exporter(BIN, ["--collector.disable-defaults", "--collector.perf",
                                "--config.file=" + cfg]) as exp:
                first = parse_samples(exp.metrics_text())
                time.sleep(0.2)
                text = exp.metrics_text()
                second = parse_samples(text)
                log = exp.log_text()
        finally:
            os.unlink(cfg)
        ok, out = promtool_check(text)
        self.assertTrue(ok, out)

        def value(samples, name, **labels):
            for n, l, v in samples:
                if n == name and all(l.get(k) == w for k, w in labels.items()):
                    return v
            return None

        a = value(first, "rnic_perf_events_total", pmu="software", event="cpu_clock_ns")
        b = value(second, "rnic_perf_events_total", pmu="software", event="cpu_clock_ns")
        if a is None:
            # Only a refusal by policy (perf_event_paranoid, no CAP_PERFMON)
            # is a reason to skip; any other error (EINVAL: an encoding bug,
            # ENOENT: a wrong type) fails the test.
            refused = ("perf_event_open: Permission denied" in log
                       or "perf_event_open: Operation not permitted" in log)
            if refused and os.geteuid() != 0:
                self.skipTest("perf_event_open not permitted here")
            self.fail("software cpu-clock did not count:\n" + log)
        self.assertGreater(b, a)
        self.assertEqual(value(second, "rnic_perf_event_unavailable",
                               pmu="uncore_iio_nonexistent", event="pcie_read"), 1)
        self.assertEqual(value(second, "rnic_scrape_collector_success", collector="perf"), 1)
        # The missing PMU is logged once, not at every scrape.
        self.assertEqual(log.count("event unavailable"), 1, log)

    def test_bad_config_names_the_key(self):
        cfg = write_config("perf:\n  events:\n    - {pmu: msr, evnt: tsc}\n")
        try:
            p = subprocess.run([BIN, "--collector.perf", "--config.file=" + cfg],
                               capture_output=True, text=True, timeout=30)
        finally:
            os.unlink(cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("evnt", p.stderr)


if __name__ == "__main__":
    unittest.main()


class ExampleConfigTest(unittest.TestCase):
    """The example config shipped in packaging/ is valid for the collectors
    it configures (they validate their sections when enabled)."""

    def test_example_config_starts(self):
        cfg = os.path.join(os.environ["RNIC_SOURCE_DIR"], "packaging", "rnic_exporter.yml")
        with Exporter(BIN, ["--config.file=" + cfg, "--collector.probe", "--collector.perf",
                            "--path.devkmsg=/dev/null"]) as exp:
            samples = parse_samples(exp.metrics_text())
        names = {n for n, _, _ in samples}
        self.assertIn("rnic_scrape_collector_success", names)
