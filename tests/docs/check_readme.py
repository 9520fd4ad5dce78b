"""Keeps README.md in step with the code: the metrics reference table equals
what the collectors declare, and every flag of --help is documented.
Run with --update to rewrite the README table."""
import os
import re
import subprocess
import sys

SRC = os.environ["RNIC_SOURCE_DIR"]
DOCS_BIN = os.environ["RNIC_METRIC_DOCS"]
EXPORTER = os.environ["RNIC_EXPORTER"]
README = os.path.join(SRC, "README.md")
BEGIN, END = "<!-- metrics-table:begin -->\n", "<!-- metrics-table:end -->"


def main():
    table = subprocess.run([DOCS_BIN], capture_output=True, text=True, check=True).stdout
    text = open(README, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        print("README.md lacks the metrics table markers")
        return 1
    head, rest = text.split(BEGIN, 1)
    current, tail = rest.split(END, 1)
    failures = 0
    if "--update" in sys.argv:
        open(README, "w", encoding="utf-8").write(head + BEGIN + table + END + tail)
        print("README.md metrics table updated")
    elif current != table:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            current.splitlines(True), table.splitlines(True), "README.md", "code"))
        print("README metrics table differs from the code; run: "
              "python3 tests/docs/check_readme.py --update (with the env of ctest)")
        failures += 1
    helptext = subprocess.run([EXPORTER, "--help"], capture_output=True, text=True,
                              check=True).stdout
    flags = set(re.findall(r"--(?:\[no-\])?([a-z][a-z0-9._-]+)", helptext))
    for flag in sorted(flags):
        if flag.startswith("collector.") and flag.count(".") == 1:
            needle = "collector.<name>"  # documented generically
            if needle in text:
                continue
        if "--" + flag not in text and "-collector." + flag.split("collector.", 1)[-1] not in text:
            print("flag --%s is not documented in README.md" % flag)
            failures += 1
    print("%d passed, %d failed" % (1 if failures == 0 else 0, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
