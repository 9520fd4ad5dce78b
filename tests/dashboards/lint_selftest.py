#!/usr/bin/env python3
"""Proves lint_dashboards.py fails where it should.

Runs the linter on testdata/bad_dashboard.json, which breaks one rule per
panel/variable on purpose, and expects every one of those rules reported.
Declared names come from testdata/fake_metric_docs (a stand-in for
`rnic_metric_docs --names`) and the docs/metrics.md table of testdata/fakerepo; they
must pass, while an undeclared metric in a dashboard or in a rule of
fakerepo/dashboards/rules must be reported. Without (or with a failing)
docs binary, --require-docs must fail.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LINT = os.path.join(HERE, "lint_dashboards.py")
BAD = os.path.join(HERE, "testdata", "bad_dashboard.json")
# A repository with a docs/metrics.md table and one rule file.
FAKE_REPO = os.path.join(HERE, "testdata", "fakerepo")
FAKE_DOCS = os.path.join(HERE, "testdata", "fake_metric_docs")
FAILING_DOCS = os.path.join(HERE, "testdata", "failing_metric_docs")

EXPECTED = [
    "[dashboard-id]",
    "[dashboard-uid]",
    "[uneditable-dashboard]",
    "[template-datasource-rule]",
    "[template-job-rule] label must be 'job'",
    "[template-job-rule] must query ${datasource}",
    "[template-job-rule] must be multi-select",
    '[template-job-rule] allValue must be ".+"',
    "[template-instance-rule] missing variable 'instance'",
    "[template-on-time-change-reload-rule]",
    "[panel-id] duplicate id 1",
    "[panel-units-rule]",
    "[target-rate-interval-rule] rate/irate/increase over [5m]",
    "[panel-title-description-rule]",
    "[panel-datasource-rule]",
    "[target-instance-rule] selector rnic_hw_out_of_buffer_total",
    "[target-counter-agg-rule] counter rnic_hw_out_of_buffer_total",
    "[target-promql-rule]",
    "[panel-no-targets-rule]",
    "[metric-documented] rnic_not_a_documented_metric",
    "[metric-documented] rnic_fake_undeclared_in_rule",
]


def run(docs_bin):
    args = [sys.executable, LINT, "--require-docs", "--repo", FAKE_REPO]
    if docs_bin:
        args += ["--metric-docs-bin", docs_bin]
    return subprocess.run(args + [BAD], capture_output=True, text=True)


def main():
    proc = run(FAKE_DOCS)
    out = proc.stdout + proc.stderr
    missing = [e for e in EXPECTED if e not in out]
    ok = True
    if proc.returncode == 0:
        print("selftest: linter passed a dashboard that breaks every rule")
        ok = False
    if missing:
        print("selftest: linter did not report:\n  " + "\n  ".join(missing))
        ok = False
    # Documented names, a placeholder match and a histogram's _bucket series
    # must not be reported.
    for name in ("rnic_port_state ", "rnic_port_data_transmitted_bytes_total ",
                 "rnic_hw_some_driver_counter_total",
                 "rnic_fake_rule_input_total", "rnic_fake_docs_page_only",
                 "rnic_fake_latency_seconds_bucket", "[panel-id] duplicate id 4"):
        if name in out:
            print(f"selftest: linter wrongly reported {name.strip()}")
            ok = False
    # Declared names unavailable: --require-docs must fail, naming why.
    for docs_bin, why in ((None, "no declared metric names"),
                          (FAILING_DOCS, "--names exited 3")):
        p = run(docs_bin)
        if p.returncode == 0 or why not in p.stdout:
            print(f"selftest: docs binary {docs_bin}: expected a failure "
                  f"saying '{why}'")
            out += p.stdout + p.stderr
            ok = False
    if not ok:
        print(out)
        return 1
    print(f"selftest: OK ({len(EXPECTED)} expected findings reported)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
