"""pcie, carrier, expect and port_health collectors through the real binary
over HTTP on 127.0.0.1, on tests/fixtures/health (mlx5 PF and VF, hfi1, a
downtrained E810 with a flapping netdev); a sysfs attribute that hangs (a
FIFO in a copy of the tree) costs its port an unknown state, not the scrape;
and a bad expect section refused at start-up with exit code 2 and a message
naming the entry and key."""
import os
import shutil
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

    def test_hung_read_makes_its_port_unknown_not_the_scrape(self):
        tmp = tempfile.mkdtemp()
        sysfs = os.path.join(tmp, "sys")
        shutil.copytree(os.path.join(FIX, "sys"), sysfs, symlinks=True)
        state = os.path.realpath(
            os.path.join(sysfs, "class/infiniband/mlx5_0/ports/1/state"))
        os.unlink(state)
        os.mkfifo(state)  # open() blocks until a writer comes: none does
        cfg = os.path.join(tmp, "c.yml")
        with open(cfg, "w") as f:
            f.write("port_health: {read_deadline: 200ms}\n")
        args = ["--path.sysfs=" + sysfs,
                "--path.procfs=" + os.path.join(FIX, "proc"),
                "--path.devkmsg=/dev/null", "--config.file=" + cfg]
        try:
            with Exporter(BIN, args) as exp:
                exp.metrics_text()  # starts the read that hangs
                text = exp.metrics_text()
                self.assertEqual(exp.stop(), 0)
        finally:
            shutil.rmtree(tmp)
        promtool_check(text)
        states = {(l["device"], l["state"]): v for n, l, v in parse_samples(text)
                  if n == "rnic_port_health_state"}
        self.assertEqual(states[("mlx5_0", "unknown")], 1)
        self.assertEqual(states[("hfi1_0", "ok")], 1)
        info = {l["device"]: l.get("reason", "") for n, l, _ in parse_samples(text)
                if n == "rnic_port_health_info"}
        self.assertEqual(info["mlx5_0"], "read of class/infiniband/mlx5_0/ports/1/"
                         "state not answered within 200ms")
        one = {n: v for n, l, v in parse_samples(text) if not l}
        self.assertEqual(one["rnic_port_health_stuck_reads"], 1)
        self.assertGreater(one["rnic_port_health_stuck_read_seconds"], 0)
        # port_health answers; the sysfs collector, which reads the same
        # file on the scrape thread, is the one the hang costs.
        success = {l["collector"]: v for n, l, v in parse_samples(text)
                   if n == "rnic_scrape_collector_success"}
        self.assertEqual(success["port_health"], 1)
        self.assertEqual(success["pcie"], 1)

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
