"""roce collector through the real binary over HTTP on 127.0.0.1.

1. On the fixture tree (mlx5 PF, IB port, VF, Soft-RoCE on virtio-net) with
   the `ethtool -S` and DCB captures replayed: every documented family
   appears with the right labels, promtool accepts the output, skipped values
   are logged once.
2. On the real kernel: the test makes a network namespace with a veth pair,
   enters it (setns via ctypes, so the exporter it starts and the HTTP client
   both live there) and points a small sysfs tree at the veth and at lo. The
   exporter reads veth's real ethtool table (none of our names: no PFC
   series), gets EOPNOTSUPP from dcbnl and from lo's ethtool, and survives
   the veth vanishing."""
import ctypes
import os
import subprocess
import tempfile
import time
import unittest

from rnic_e2e import Exporter, parse_samples, promtool_check

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIX = os.path.join(SRC, "tests", "fixtures", "roce")

FAMILIES = {
    "rnic_pfc_pause_frames_total", "rnic_pfc_pause_duration_seconds_total",
    "rnic_pfc_pause_transitions_total", "rnic_pfc_pause_storm_warning_events_total",
    "rnic_pfc_pause_storm_error_events_total", "rnic_rx_priority_discards_total",
    "rnic_rx_priority_buffer_discards_total", "rnic_rx_priority_congestion_discards_total",
    "rnic_rx_priority_ecn_marked_packets_total", "rnic_phy_rx_discards_total",
    "rnic_phy_tx_discards_total", "rnic_rx_out_of_buffer_total",
    "rnic_pcie_outbound_stalled_reads_ratio", "rnic_pcie_outbound_stalled_writes_ratio",
    "rnic_pcie_outbound_stalled_reads_seconds_total",
    "rnic_pcie_outbound_stalled_writes_seconds_total",
    "rnic_pcie_outbound_buffer_overflow_packets_total", "rnic_netdev_mtu_bytes",
    "rnic_roce_mtu_4096_capable", "rnic_pfc_enabled", "rnic_dcb_willing",
    "rnic_dcb_app_dscp_mappings", "rnic_roce_ecn_enabled", "rnic_numa_node", "rnic_irqs",
    "rnic_irqs_off_numa_node",
}


def value(samples, name, **labels):
    hits = [v for n, l, v in samples
            if n == name and all(l.get(k) == w for k, w in labels.items())]
    if len(hits) > 1:
        raise AssertionError("%s %s matches %d samples" % (name, labels, len(hits)))
    return hits[0] if hits else None


def roce_families(samples):
    return {n for n, l, v in samples if n.startswith("rnic_") and not n.startswith("rnic_scrape")
            and n != "rnic_build_info"}


class RoceFixtureTest(unittest.TestCase):
    def test_fixture_tree(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as cfg:
            cfg.write("roce:\n  ethtool_stats_dir: %s\n  dcb_dir: %s\n"
                      % (os.path.join(FIX, "ethtool"), os.path.join(FIX, "dcb")))
        try:
            with Exporter(BIN, ["--collector.disable-defaults", "--collector.roce",
                                "--path.sysfs=" + os.path.join(FIX, "sys"),
                                "--path.procfs=" + os.path.join(FIX, "proc"),
                                "--config.file=" + cfg.name]) as exp:
                exp.metrics_text()
                text = exp.metrics_text()
                log = exp.log_text()
        finally:
            os.unlink(cfg.name)
        ok, out = promtool_check(text)
        self.assertTrue(ok, out)
        s = parse_samples(text)
        self.assertEqual(value(s, "rnic_scrape_collector_success", collector="roce"), 1)
        self.assertEqual(roce_families(s), FAMILIES)
        pf = dict(device="mlx5_0", port="1", netdev="enp129s0f0np0")
        self.assertEqual(value(s, "rnic_pfc_pause_frames_total", priority="3", direction="tx", **pf), 4410)
        self.assertEqual(value(s, "rnic_pfc_pause_duration_seconds_total", priority="3",
                               direction="tx", **pf), 2.5)
        self.assertEqual(value(s, "rnic_pfc_enabled", priority="3", **pf), 1)
        self.assertEqual(value(s, "rnic_pfc_enabled", priority="4", **pf), 0)
        self.assertEqual(value(s, "rnic_irqs_off_numa_node", device="mlx5_0"), 2)
        self.assertIsNone(value(s, "rnic_irqs", device="mlx5_1"))  # InfiniBand
        # Soft-RoCE on virtio-net: no PFC counters exist, none are made up.
        rxe = {n for n, l, v in s if l.get("device") == "rxe0"}
        self.assertEqual(rxe, {"rnic_netdev_mtu_bytes", "rnic_roce_mtu_4096_capable"})
        self.assertEqual(log.count("key=dcb/eth0"), 1, log)
        self.assertNotIn("level=error", log)


libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000


def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).returncode


class RoceRealKernelTest(unittest.TestCase):
    def setUp(self):
        self.ns = "rnic_roce_e2e_%d" % os.getpid()
        if sh("ip", "netns", "add", self.ns) != 0:
            self.skipTest("cannot create a network namespace")
        self.addCleanup(sh, "ip", "netns", "del", self.ns)
        self.assertEqual(sh("ip", "-n", self.ns, "link", "set", "lo", "up"), 0)
        self.assertEqual(sh("ip", "-n", self.ns, "link", "add", "va", "type", "veth",
                            "peer", "name", "vb"), 0)
        self.tree = tempfile.mkdtemp(prefix="rnic_roce_e2e_")
        self.addCleanup(subprocess.run, ["rm", "-rf", self.tree])
        for dev, nd, mtu in (("rxe9", "va", "9000"), ("rxe8", "lo", "65536")):
            os.makedirs(os.path.join(self.tree, "class/infiniband", dev, "ports/1"))
            os.makedirs(os.path.join(self.tree, "class/net", nd), exist_ok=True)
            with open(os.path.join(self.tree, "class/infiniband", dev, "parent"), "w") as f:
                f.write(nd + "\n")
            with open(os.path.join(self.tree, "class/infiniband", dev, "ports/1/link_layer"), "w") as f:
                f.write("Ethernet\n")
            with open(os.path.join(self.tree, "class/net", nd, "mtu"), "w") as f:
                f.write(mtu + "\n")
        # Enter the namespace: the exporter we start and our HTTP client
        # both run there.
        self.old = os.open("/proc/self/ns/net", os.O_RDONLY)
        fd = os.open("/run/netns/" + self.ns, os.O_RDONLY)
        rc = libc.setns(fd, CLONE_NEWNET)
        os.close(fd)
        self.assertEqual(rc, 0, os.strerror(ctypes.get_errno()))
        self.addCleanup(self.leave)

    def leave(self):
        libc.setns(self.old, CLONE_NEWNET)
        os.close(self.old)

    def test_veth_and_loopback(self):
        with Exporter(BIN, ["--collector.disable-defaults", "--collector.roce",
                            "--path.sysfs=" + self.tree]) as exp:
            first = exp.metrics_text()
            self.assertEqual(sh("ip", "link", "del", "va"), 0)
            exp.metrics_text()
            after = exp.metrics_text()
            log = exp.log_text()
        ok, out = promtool_check(first)
        self.assertTrue(ok, out)
        s = parse_samples(first)
        self.assertEqual(value(s, "rnic_scrape_collector_success", collector="roce"), 1)
        # Real veth statistics hold no PFC names; real dcbnl says EOPNOTSUPP.
        self.assertEqual(roce_families(s), {"rnic_netdev_mtu_bytes", "rnic_roce_mtu_4096_capable"})
        self.assertEqual(value(s, "rnic_roce_mtu_4096_capable", netdev="va"), 1)
        self.assertIn('key=ethtool/lo err="lo has no ethtool statistics: Operation not supported"', log)
        self.assertEqual(log.count("key=dcb/va"), 2, log)  # EOPNOTSUPP, then ENODEV
        self.assertEqual(log.count("key=ethtool/va"), 1, log)  # ENODEV once
        self.assertIn("No such device", log)
        a = parse_samples(after)
        self.assertEqual(value(a, "rnic_scrape_collector_success", collector="roce"), 1)
        self.assertEqual(value(a, "rnic_netdev_mtu_bytes", netdev="lo"), 65536)


if __name__ == "__main__":
    unittest.main()
