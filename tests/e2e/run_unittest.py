"""Runs test modules like `python3 -m unittest -v <module>...`, and makes a
skip visible to ctest: a skipped test (no network namespace, no perf PMU)
exits 77, the tests' SKIP_RETURN_CODE, instead of passing with the rest.
A failure or error still fails; a run of no test at all fails too.

    run_unittest.py test_roce [test_perf ...]
"""
import sys
import unittest

SKIP_RETURN_CODE = 77


def main(names):
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun == 0:
        print("no test ran")
        return 1
    if result.skipped:
        for test, reason in result.skipped:
            print("SKIPPED %s: %s" % (test.id(), reason))
        return SKIP_RETURN_CODE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
