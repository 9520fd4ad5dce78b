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
SECTIONS = [("metrics-table", []), ("collectors", ["--collectors"])]


def main():
    text = open(README, encoding="utf-8").read()
    failures = 0
    for marker, args in SECTIONS:
        begin, end = "<!-- %s:begin -->\n" % marker, "<!-- %s:end -->" % marker
        table = subprocess.run([DOCS_BIN] + args, capture_output=True, text=True,
                               check=True).stdout
        if begin not in text or end not in text:
            print("README.md lacks the %s markers" % marker)
            return 1
        head, rest = text.split(begin, 1)
        current, tail = rest.split(end, 1)
        if "--update" in sys.argv:
            text = head + begin + table + end + tail
            open(README, "w", encoding="utf-8").write(text)
            print("README.md %s table updated" % marker)
        elif current != table:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), table.splitlines(True), "README.md", "code"))
            print("README %s table differs from the code; run tests/docs/update_readme.sh"
                  % marker)
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
