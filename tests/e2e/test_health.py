"""pcie, carrier and expect collectors through the real binary over HTTP on
127.0.0.1, on tests/fixtures/health (mlx5 PF and VF, hfi1, a downtrained
E810 with a flapping netdev); and a bad expect section refused at start-up
with exit code 2 and a message naming the entry and key."""
import os
import tempfile
import unittest

from rnic_e2e import Exporter, parse_samples, promtool_check
from test_bad_config import CRASH_MARKS, run_binary

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIX = os.path.join(SRC, "tests", "fixtures", "health")
ARGS = ["--path.sysfs=" + os.path.join(FIX, "sys"),
        "--path.procfs=" + os.path.join(FIX, "proc"),
        "--path.devkmsg=/dev/null"]

EXPECT = """expect:
  - device: irdma
    mtu: 9000
    rate_gbps: 25
  - device: ^mlx5_
    firmware: 22.36.1010
"""

# (expect section, what the message must contain)
BAD_EXPECT = [
    ("expect: {device: x}\n", "expect: must be a list of entries"),
    ("expect:\n  - {device: x, mtuu: 1}\n", "expect[0].mtuu: unknown key"),
    ("expect:\n  - {mtu: 9000}\n", "expect[0]: needs a device"),
    ("expect:\n  - {device: '(', mtu: 9000}\n", "expect[0].device: "),
    ("expect:\n  - {device: x, mtu: 9000}\n  - {device: y, trust: l2}\n",
     "expect[1].trust: must be dscp or pcp"),
    ("expect:\n  - {device: x, pfc_priorities: [9]}\n", "expect[0].pfc_priorities:"),
    ("expect:\n  - {device: x, numa_local_irqs: maybe}\n", "expect[0].numa_local_irqs:"),
    ("expect:\n  - {device: x, [a]: 1}\n", "expect[0]: a key must be a plain name"),
    ("expect:\n  - {device: x}\n", "expect[0]: no check given"),
]


def samples(text, name):
    return {tuple(sorted(l.items())): v for n, l, v in parse_samples(text) if n == name}


class HealthTest(unittest.TestCase):
    def test_fixture_over_http(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write(EXPECT)
        try:
            with Exporter(BIN, ARGS + ["--config.file=" + f.name]) as exp:
                text = exp.metrics_text()
                self.assertEqual(exp.stop(), 0)
        finally:
            os.unlink(f.name)
        promtool_check(text)
        down = samples(text, "rnic_pcie_link_downtrained")
        self.assertEqual(
            down[(("device", "irdma0"), ("pci_address", "0000:af:00.0"))], 1)
        self.assertEqual(
            down[(("device", "mlx5_0"), ("pci_address", "0000:3b:00.0"))], 0)
        # The VF: its PF in a label; its current link is "Unknown" (no
        # current or downtrained series), its maximum is known.
        vf = {n: l for n, l, _ in parse_samples(text)
              if n.startswith("rnic_pcie_") and l.get("device") == "mlx5_2"}
        self.assertEqual(set(vf), {"rnic_pcie_link_max_speed_transfers_per_second",
                                   "rnic_pcie_link_max_width_lanes"})
        for labels in vf.values():
            self.assertEqual(labels["pf"], "0000:3b:00.0")
        flaps = samples(text, "rnic_netdev_carrier_changes_total")
        self.assertEqual(flaps[(("device", "irdma0"), ("netdev", "ens801f0"),
                                ("port", "1"))], 14)
        checks = {(l["device"], l["check"], l["expected"]): v
                  for n, l, v in parse_samples(text) if n == "rnic_expect_check_ok"}
        self.assertEqual(checks, {
            ("irdma0", "mtu", "9000"): 0,
            ("irdma0", "rate_gbps", "25"): 1,
            ("mlx5_0", "firmware", "22.36.1010"): 1,
            ("mlx5_2", "firmware", "22.36.1010"): 1,
        })
        for n, l, v in parse_samples(text):
            if n == "rnic_scrape_collector_success":
                self.assertEqual(v, 1, l["collector"])

    def test_bad_expect_sections_are_refused(self):
        for text, needle in BAD_EXPECT:
            with self.subTest(config=text):
                with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
                    f.write(text)
                try:
                    p = run_binary(["--config.file=" + f.name])
                finally:
                    os.unlink(f.name)
                self.assertIsNotNone(p, "started instead of refusing the input")
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(needle, p.stderr)
                self.assertIn(f.name, p.stderr)
                for mark in CRASH_MARKS:
                    self.assertNotIn(mark, p.stderr)


if __name__ == "__main__":
    unittest.main()
