"""Hostile input to the real binary: every bad flag or config file is refused
at start-up with exit code 2 and a message naming the flag or key, never a
crash (signal, uncaught exception, sanitizer report); a hostile scrape
timeout header falls back to the default instead of failing the scrape."""
import os
import subprocess
import tempfile
import unittest

from rnic_e2e import Exporter, parse_samples

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null",
             "--web.listen-address=127.0.0.1:0"]

# What a crash leaves in stderr, whatever the build (sanitizers or not).
CRASH_MARKS = ["runtime error", "AddressSanitizer", "UndefinedBehaviorSanitizer",
               "terminate called", "Aborted", "Segmentation fault"]

# (config file text, extra flags, what the message must contain)
BAD_CONFIGS = [
    # A list or map as a key threw from yaml-cpp and aborted (exit 134).
    ("[a, b]: 1\n", [], "a key must be a plain name, not [a, b]"),
    ("{a: 1}: 2\n", [], "a key must be a plain name, not {a: 1}"),
    ("perf:\n  [a, b]: 1\n", ["--collector.perf"], "perf: a key must be a plain name"),
    ("perf:\n  [a, b]: 1\n", [], "perf: a key must be a plain name"),
    ("probe:\n  {a: 1}: 2\n", ["--collector.probe"], "probe: a key must be a plain name"),
    ("probe:\n  {a: 1}: 2\n", [], "probe: a key must be a plain name"),
    ("roce:\n  [a]: 1\n", [], "roce: a key must be a plain name"),
    ("perf:\n  events:\n    - {pmu: msr, event: tsc, [x]: 1}\n", [],
     "perf.events[0]: a key must be a plain name"),
    # Sections of disabled collectors are checked too.
    ("probe: {interval: banana}\n", [], "probe.interval:"),
    ("probe: {qp_counters: maybe}\n", [], "probe.qp_counters:"),
    ("probe: {timeout: inf}\n", [], "probe.timeout:"),
    ("probe: {interval: 1e300}\n", [], "probe.interval:"),
    # Unknown keys name section and key.
    ("perf: {cpus: 3}\n", [], "perf.cpus: unknown key"),
    ("perf:\n  events:\n    - {pmu: msr, event: tsc, cpu: 1}\n", [],
     "perf.events[0].cpu: unknown key"),
    ("probe: {intervall: 1s}\n", [], "probe.intervall: unknown key"),
    ("roce: {dcb: /tmp}\n", [], "roce.dcb: unknown key"),
    ("sysfs: {foo: 1}\n", [], "sysfs.foo: unknown key (this collector has no settings)"),
    ("not_a_collector: {}\n", [], "unknown key 'not_a_collector'"),
    # Values that were silently dropped.
    ("perf:\n  events:\n    - {pmu: msr, event: tsc, cpus: x}\n", [],
     "perf.events[0].cpus:"),
    ("perf:\n  events:\n    - {pmu: msr, event: tsc, scale: .nan}\n", [],
     "perf.events[0].scale:"),
    ("probe: {interval: 1s, interval: 2s}\n", [], "probe.interval: given twice"),
    # fabric: checked whether the collector is on or not.
    ("fabric: {peerz: [a]}\n", [], "fabric.peerz: unknown key"),
    ("fabric: {peers: ['a:b']}\n", ["--collector.fabric"], "fabric.peers[0]: bad port"),
    ("fabric: {sizes: [0]}\n", [], "fabric.sizes[0]: must be between 1 and 65536"),
    ("fabric: {operations: [atomic]}\n", [], "fabric.operations[0]: unknown operation"),
    ("fabric: {group_by: 'a-b'}\n", [], "fabric.group_by: must be a label name"),
    ("fabric: {file_sd: [[x]]}\n", [], "fabric.file_sd[0]: must be a scalar"),
    # A file_sd file that exists but is no peer list stops start-up (at run
    # time it costs one log line and keeps the last good peers).
    ("fabric: {file_sd: /dev/zero}\n", [], "fabric.file_sd: /dev/zero: not a regular file"),
    ("fabric: {file_sd: [/nonexistent.json, /]}\n", [],
     "fabric.file_sd[1]: /: not a regular file"),
    ("fabric: {pairing: rail}\n", [], "fabric.pairing: must be subnet or all"),
    # A second document was ignored, unknown keys and all.
    ("probe: {}\n---\nbogus: 1\n", [], "more than one YAML document"),
    ("---\n---\n", [], "more than one YAML document"),
]

BAD_FLAGS = [
    (["--web.default-timeout=nan"], "--web.default-timeout"),
    (["--web.default-timeout=inf"], "--web.default-timeout"),
    (["--web.default-timeout=1e300"], "--web.default-timeout"),
    (["--web.default-timeout=0"], "--web.default-timeout"),
    (["--web.timeout-offset=nan"], "--web.timeout-offset"),
    (["--web.timeout-offset=inf"], "--web.timeout-offset"),
    (["--web.timeout-offset=1e300"], "--web.timeout-offset"),
    (["--collector.fabric.port=0"], "--collector.fabric.port=0"),
    (["--collector.fabric.tos=256"], "--collector.fabric.tos=256"),
    (["--collector.fabric.devices=("], "--collector.fabric.devices=("),
    (["--collector.netlink_stat.qp-counters=maybe"],
     "--collector.netlink_stat.qp-counters=maybe: not a boolean (true/false)"),
    # A directory aborted with an uncaught std::ios_base::failure.
    (["--config.file=/tmp"], "/tmp: not a regular file"),
    (["--config.file=/dev/zero"], "/dev/zero: not a regular file"),
    (["--web.config.file=/dev/zero"], "/dev/zero: not a regular file"),
    # Flag durations have the config file's limits: 293y overflowed to a
    # spinning optics thread, 1e-300 s failed every scrape.
    (["--collector.ethtool.optics-interval=293y"],
     "--collector.ethtool.optics-interval=293y: must be between"),
    (["--collector.ethtool.optics-interval=0"],
     "--collector.ethtool.optics-interval=0: must be between"),
    (["--no-collector.ethtool", "--collector.ethtool.optics-interval=0"],
     "--collector.ethtool.optics-interval=0: must be between"),
    (["--web.default-timeout=1e-300"], "--web.default-timeout"),
    (["--web.timeout-offset=1e-300"], "--web.timeout-offset"),
    # /dev/zero spun a core silently; a directory read nothing forever.
    (["--path.devkmsg=/dev/zero"], "--path.devkmsg: /dev/zero: not the kernel log"),
    (["--path.devkmsg=/tmp"], "--path.devkmsg: /tmp: not the kernel log"),
    # A missing tree started silently, every collector reporting success.
    (["--path.sysfs=/nonexistent"], "--path.sysfs: /nonexistent: "),
    (["--path.procfs=/nonexistent"], "--path.procfs: /nonexistent: "),
    # A repeated flag silently took the last value.
    (["--web.telemetry-path=/a", "--web.telemetry-path=/b"],
     "flag --web.telemetry-path: given twice"),
    (["--collector.ethtool.optics-interval=1m", "--collector.ethtool.optics-interval=2m"],
     "flag --collector.ethtool.optics-interval: given twice"),
    (["--collector.kmsg", "--no-collector.kmsg"], "flag --no-collector.kmsg: given twice"),
]


def run_binary(args):
    """The finished process, or None when it was still running (it started
    instead of refusing) after a generous grace period. A flag in `args`
    replaces the base argument of the same name (a repeated flag is refused)."""
    given = {a.split("=")[0] for a in args}
    base = [a for a in BASE_ARGS if a.split("=")[0] not in given]
    try:
        return subprocess.run([BIN] + base + args, capture_output=True, text=True,
                              timeout=20)
    except subprocess.TimeoutExpired:
        return None


class BadInputTest(unittest.TestCase):
    def assert_refused(self, p, needle):
        self.assertIsNotNone(p, "started instead of refusing the input")
        # A negative return code is a signal; 134 is SIGABRT through a shell.
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("rnic_exporter: error: ", p.stderr)
        self.assertIn(needle, p.stderr)
        self.assertNotIn("listening", p.stderr)
        for mark in CRASH_MARKS:
            self.assertNotIn(mark, p.stderr)

    def test_bad_config_files_are_refused(self):
        for text, flags, needle in BAD_CONFIGS:
            with self.subTest(config=text, flags=flags):
                with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
                    f.write(text)
                try:
                    p = run_binary(["--config.file=" + f.name] + flags)
                finally:
                    os.unlink(f.name)
                self.assert_refused(p, needle)
                self.assertIn(f.name, p.stderr)

    def test_bad_flags_are_refused(self):
        for flags, needle in BAD_FLAGS:
            with self.subTest(flags=flags):
                self.assert_refused(run_binary(flags), needle)

    def test_oversized_config_file_is_refused(self):
        # A 10 MB config held about 1 GB of YAML nodes: the file is refused
        # before it is parsed.
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write("# padding\n" * ((2 << 20) // 10))
        try:
            p = run_binary(["--config.file=" + f.name])
        finally:
            os.unlink(f.name)
        self.assert_refused(p, f.name + ": larger than 1048576 bytes")

    def test_shipped_config_starts(self):
        # The good case: the same checks pass the shipped example (probe and
        # perf sections present, those collectors off).
        config = os.path.join(SRC, "packaging", "rnic_exporter.yml")
        with Exporter(BIN, BASE_ARGS[:2] + ["--config.file=" + config]) as exp:
            self.assertIn("rnic_build_info", exp.metrics_text())
            self.assertEqual(exp.stop(), 0)
            log = exp.log_text()
        for mark in CRASH_MARKS:
            self.assertNotIn(mark, log)

    def test_hostile_timeout_header_falls_back_to_the_default(self):
        # inf and 1e300 used to give every collector an overflowed deadline,
        # so each one failed every scrape.
        with Exporter(BIN, BASE_ARGS[:2]) as exp:
            for value in ["inf", "-inf", "nan", "1e300", "-1", "0", "garbage"]:
                with self.subTest(header=value):
                    status, _, body = exp.get(
                        "/metrics", {"X-Prometheus-Scrape-Timeout-Seconds": value})
                    self.assertEqual(status, 200)
                    success = [(l["collector"], v) for n, l, v in parse_samples(body.decode())
                               if n == "rnic_scrape_collector_success"]
                    self.assertTrue(success)
                    for collector, v in success:
                        self.assertEqual(v, 1, collector)
            self.assertEqual(exp.stop(), 0)
            log = exp.log_text()
        for mark in CRASH_MARKS:
            self.assertNotIn(mark, log)


if __name__ == "__main__":
    unittest.main()
