"""Input of the e2e_runner_reports_skips test: one pass and one skip, which
run_unittest.py must report as a skip (77), not a pass."""
import unittest


class Fixture(unittest.TestCase):
    def test_passes(self):
        self.assertTrue(True)

    def test_skips(self):
        self.skipTest("skipped on purpose")
