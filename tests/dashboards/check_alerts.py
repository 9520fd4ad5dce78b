#!/usr/bin/env python3
"""Style and coverage checks for dashboards/alerts/*.yaml.

promtool checks syntax; this checks the monitoring-mixins conventions and
that nothing ships untested:
  * alert names are CamelCase with the Rnic prefix and unique;
  * labels.severity is critical, warning or info;
  * annotations summary, description and runbook_url are present;
  * runbook_url points at an anchor of dashboards/RUNBOOK.md that exists
    (a "## <AlertName>" heading; GitHub anchors are lower case);
  * dashboards/tests/*.yaml has, for every alert, at least one case where
    it fires (non-empty exp_alerts) and one where it does not
    (exp_alerts: []);
  * every recorded series is evaluated by at least one promql_expr_test or
    read by an alert (so it is exercised by the alert tests).

Python standard library only; parses the simple YAML layout of our files.
"""
import argparse
import glob
import os
import re
import sys

SEVERITIES = {"critical", "warning", "info"}


def alert_blocks(text):
    """(name, block text) per `- alert:` entry."""
    parts = re.split(r"(?m)^\s*- alert:\s*", text)
    for part in parts[1:]:
        name, _, rest = part.partition("\n")
        # The block ends where the next list item at the same or a lower
        # indentation starts (next alert/record or next group).
        block = re.split(r"(?m)^\s{0,6}- (?:alert|record|name):", rest)[0]
        yield name.strip(), block


def heading_anchors(markdown):
    anchors = set()
    for m in re.finditer(r"(?m)^#{1,6}\s+(.+?)\s*$", markdown):
        title = m.group(1).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_cases(tests_dir):
    """alertname -> set of {'fires', 'quiet'} seen in promtool test files."""
    seen = {}
    exprs = []
    for path in sorted(glob.glob(os.path.join(tests_dir, "*.yaml"))):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(
                r"(?m)^\s*alertname:\s*(\S+)\s*\n\s*exp_alerts:\s*(\[\])?", text):
            seen.setdefault(m.group(1), set()).add(
                "quiet" if m.group(2) else "fires")
        exprs += re.findall(r"(?m)^\s*- expr:\s*(.+)$", text)
    return seen, exprs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo_default = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=repo_default)
    args = ap.parse_args()
    dash = os.path.join(args.repo, "dashboards")
    problems = []

    runbook_path = os.path.join(dash, "RUNBOOK.md")
    anchors = set()
    if os.path.exists(runbook_path):
        anchors = heading_anchors(open(runbook_path, encoding="utf-8").read())
    else:
        problems.append("dashboards/RUNBOOK.md is missing")

    seen, test_exprs = test_cases(os.path.join(dash, "tests"))
    names = []
    alert_text = ""
    for path in sorted(glob.glob(os.path.join(dash, "alerts", "*.yaml"))):
        text = open(path, encoding="utf-8").read()
        alert_text += text
        for name, block in alert_blocks(text):
            names.append(name)
            where = f"{os.path.basename(path)} {name}"
            if not re.match(r"^Rnic[A-Z][A-Za-z0-9]*$", name):
                problems.append(f"{where}: name must be CamelCase starting Rnic")
            sev = re.search(r"(?m)^\s*severity:\s*(\S+)", block)
            if not sev or sev.group(1).strip("'\"") not in SEVERITIES:
                problems.append(f"{where}: severity must be one of "
                                f"{sorted(SEVERITIES)}")
            for key in ("summary", "description", "runbook_url"):
                if not re.search(rf"(?m)^\s*{key}:\s*\S", block):
                    problems.append(f"{where}: annotation {key} missing")
            url = re.search(r"(?m)^\s*runbook_url:\s*(\S+)", block)
            if url:
                anchor = url.group(1).partition("#")[2]
                if "RUNBOOK.md" not in url.group(1) or not anchor:
                    problems.append(f"{where}: runbook_url must point into "
                                    "RUNBOOK.md#<anchor>")
                elif anchor != name.lower():
                    problems.append(f"{where}: runbook anchor should be "
                                    f"#{name.lower()}")
                elif anchors and anchor not in anchors:
                    problems.append(f"{where}: RUNBOOK.md has no heading for "
                                    f"#{anchor}")
            cases = seen.get(name, set())
            for kind in ("fires", "quiet"):
                if kind not in cases:
                    problems.append(f"{where}: no promtool test where it "
                                    f"{'fires' if kind == 'fires' else 'stays quiet'}")
    dupes = {n for n in names if names.count(n) > 1}
    for n in sorted(dupes):
        problems.append(f"alert {n} defined more than once")

    recorded = set()
    for path in glob.glob(os.path.join(dash, "rules", "*.yaml")):
        recorded |= set(re.findall(r"(?m)^\s*- record:\s*(\S+)",
                                   open(path, encoding="utf-8").read()))
    tested_text = "\n".join(test_exprs) + "\n" + alert_text
    for r in sorted(recorded):
        if r not in tested_text:
            problems.append(f"recording rule {r} is neither evaluated by a "
                            "promql_expr_test nor read by an alert")

    print(f"check_alerts: {len(names)} alerts, {len(recorded)} recorded names")
    for p in problems:
        print(p)
    if problems:
        print(f"check_alerts: {len(problems)} problem(s)")
        return 1
    print("check_alerts: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
