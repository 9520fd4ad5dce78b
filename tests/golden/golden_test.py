"""Golden test of the whole /metrics of the real binary on the fixture sysfs
tree, over HTTP on 127.0.0.1, linted by promtool.
RNIC_UPDATE_GOLDEN=1 rewrites metrics.prom."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from rnic_e2e import Exporter, parse_samples, promtool_check  # noqa: E402

BIN = os.environ["RNIC_EXPORTER"]
DOCS_BIN = os.environ["RNIC_METRIC_DOCS"]
SRC = os.environ["RNIC_SOURCE_DIR"]
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "metrics.prom")
ARGS = ["--path.sysfs=" + os.path.join(SRC, "tests", "fixtures", "sys"),
        "--path.devkmsg=/dev/null",
        "--collector.disable-defaults", "--collector.sysfs"]
# Values that change from run to run or build to build.
VOLATILE = re.compile(r"^(process_|rnic_scrape_collector_duration_seconds|rnic_build_info)")


def documented_patterns():
    table = subprocess.run([DOCS_BIN], capture_output=True, text=True, check=True).stdout
    pats = []
    for name in re.findall(r"^\| `([^`]+)`", table, re.M):
        pats.append(re.compile("^" + re.sub(r"<[^>]+>", "[A-Za-z0-9_]+", name) + "$"))
    return pats


def main():
    with Exporter(BIN, ARGS) as exp:
        text = exp.metrics_text()
        log = exp.log_text()
    failures = 0
    ok, out = promtool_check(text)
    if not ok:
        print("promtool check metrics:\n" + out)
        failures += 1
    stable = "".join(l + "\n" for l in text.splitlines() if not VOLATILE.match(l)
                     and not re.match(r"^# (HELP|TYPE) (process_|rnic_scrape_collector_duration|rnic_build_info)", l))
    if os.environ.get("RNIC_UPDATE_GOLDEN"):
        open(GOLDEN, "w").write(stable)
        print("updated " + GOLDEN)
    else:
        want = open(GOLDEN).read() if os.path.exists(GOLDEN) else ""
        if want != stable:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                want.splitlines(True), stable.splitlines(True), "golden", "actual"))
            print("golden output differs; if intended: RNIC_UPDATE_GOLDEN=1 ctest -R golden")
            failures += 1
    pats = documented_patterns()
    families = {name for name, _, _ in parse_samples(text)}
    for fam in sorted(families):
        base = re.sub(r"_(bucket|sum|count)$", "", fam)
        if not any(p.match(fam) or p.match(base) for p in pats):
            print("family %s is not declared by any collector (rnic_metric_docs)" % fam)
            failures += 1
    for name, labels, value in parse_samples(text):
        if name == "rnic_scrape_collector_success" and value != 1:
            print("collector %s failed on the fixture tree" % labels)
            failures += 1
    if "level=error" in log:
        print("exporter logged errors:\n" + log)
        failures += 1
    print("%d passed, %d failed" % (0 if failures else 1, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
