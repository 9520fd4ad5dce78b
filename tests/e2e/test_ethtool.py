"""ethtool collector through the real binary and this host's real kernel:
the fixture sysfs tree names netdevs this host does not have, so ethtool
generic netlink answers ENODEV for them (or the kernel has no ethtool
family): no FEC, statistics or optics series for them, one log line per
netdev and part across scrapes, and the collector still succeeds. A bad
optics interval stops start-up naming the flag."""
import os
import subprocess
import unittest

from rnic_e2e import Exporter, parse_samples, promtool_check

BIN = os.environ["RNIC_EXPORTER"]
SYSFS = os.path.join(os.environ["RNIC_SOURCE_DIR"], "tests", "fixtures", "roce", "sys")
ABSENT = "enp129s0f0np0"  # mlx5_0's netdev in the fixture


class EthtoolTest(unittest.TestCase):
    def test_absent_netdevs_no_series_one_log_line(self):
        if os.path.exists("/sys/class/net/" + ABSENT):
            self.skipTest(ABSENT + " exists on this host")
        with Exporter(BIN, ["--collector.disable-defaults", "--collector.ethtool",
                            "--path.sysfs=" + SYSFS,
                            "--collector.ethtool.optics-interval=1s"]) as exp:
            exp.metrics_text()
            text = exp.metrics_text()
            log = exp.log_text()
        ok, out = promtool_check(text)
        self.assertTrue(ok, out)
        samples = parse_samples(text)
        for n, labels, _ in samples:
            self.assertNotEqual(labels.get("netdev"), ABSENT, (n, labels))
        success = [v for n, l, v in samples
                   if n == "rnic_scrape_collector_success" and l.get("collector") == "ethtool"]
        self.assertEqual(success, [1.0])
        if "no ethtool generic netlink" in log:
            self.assertEqual(log.count("no ethtool generic netlink"), 1, log)
            return
        # Two scrapes, one line per part for the absent netdev.
        self.assertEqual(log.count("key=fec/" + ABSENT), 1, log)
        self.assertEqual(log.count("key=stats/" + ABSENT), 1, log)
        self.assertIn("No such device", log)

    def test_bad_optics_interval_names_the_flag(self):
        p = subprocess.run([BIN, "--collector.ethtool.optics-interval=soon"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--collector.ethtool.optics-interval", p.stderr)


if __name__ == "__main__":
    unittest.main()
