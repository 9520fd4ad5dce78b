#!/usr/bin/env python3
"""The unit's SystemCallFilter= allows every syscall the exporter makes.

Runs the real rnic_exporter under `strace -f` on the fixture sysfs tree with
every collector that works without RDMA hardware, scrapes it, and checks each
traced syscall against the filter of packaging/systemd/rnic-exporter.service
as systemd-analyze expands it (allow list minus deny list). A syscall outside
the filter would be answered with EPERM in production.

Fails without strace or systemd-analyze. Env: RNIC_EXPORTER,
RNIC_SOURCE_DIR.
"""
import os
import signal
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("RNIC_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SRC, "tests", "e2e"))
from rnic_e2e import Exporter  # noqa: E402

BIN = os.environ.get("RNIC_EXPORTER", os.path.join(SRC, "build", "exporter",
                                                   "rnic_exporter"))
UNIT = os.path.join(SRC, "packaging", "systemd", "rnic-exporter.service")


def expand(tokens, groups):
    out = set()
    for tok in tokens:
        if tok.startswith("@"):
            out |= expand(groups.get(tok, []), groups)
        else:
            out.add(tok)
    return out


def syscall_groups():
    text = subprocess.run(["systemd-analyze", "syscall-filter"],
                          capture_output=True, text=True, check=True).stdout
    groups, current = {}, None
    for line in text.splitlines():
        if line.startswith("@"):
            current = line.split()[0]
            groups[current] = []
        elif current and line.strip() and not line.strip().startswith("#"):
            groups[current].append(line.split()[0])
    return groups


def unit_filter(groups):
    allow, deny = set(), set()
    for line in open(UNIT, encoding="utf-8"):
        m = re.match(r"^SystemCallFilter=(~?)(.*)$", line.strip())
        if not m:
            continue
        names = expand(m.group(2).split(), groups)
        (deny if m.group(1) else allow).update(names)
    return allow, deny


def main():
    for tool in ("strace", "systemd-analyze"):
        if not shutil.which(tool):
            print(f"FAIL: {tool} not installed (run ./setup.sh)")
            return 1
    if not os.path.exists(BIN):
        print(f"FAIL: no exporter binary at {BIN}")
        return 1
    groups = syscall_groups()
    allow, deny = unit_filter(groups)
    if not allow:
        print("no SystemCallFilter allow list in the unit")
        return 1

    help_text = subprocess.run([BIN, "--help"], capture_output=True,
                               text=True).stdout
    collectors = [c for c in ("sysfs", "perf", "kmsg", "netlink_stat",
                              "netlink_resource", "roce")
                  if f"collector.{c} " in help_text.replace("]", " ")
                  or f"collector.{c}" in help_text]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace")
        wrapper = os.path.join(tmp, "traced_exporter")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec strace -f -qq -o %s -e trace=all %s \"$@\"\n"
                    % (trace, BIN))
        os.chmod(wrapper, 0o755)
        kmsg = os.path.join(tmp, "kmsg")
        open(kmsg, "w").close()
        args = ["--path.sysfs=" + os.path.join(SRC, "tests", "fixtures", "sys"),
                "--path.devkmsg=" + kmsg, "--collector.disable-defaults"]
        args += ["--collector." + c for c in collectors]
        with Exporter(wrapper, args) as exp:
            for _ in range(2):
                exp.metrics_text()
                exp.metrics_text(headers={"Accept-Encoding": "gzip"})
            # SIGTERM to strace would only detach it and leave the exporter
            # running: stop the traced exporter itself, strace then exits.
            pid = exp.proc.pid
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                children = [int(c) for c in f.read().split()]
            for child in children:
                os.kill(child, signal.SIGTERM)
            exp.proc.wait(30)
        names = set()
        for path in [p for p in os.listdir(tmp) if p.startswith("trace")]:
            for line in open(os.path.join(tmp, path), errors="replace"):
                m = re.match(r"^(?:\d+\s+)?([a-z0-9_]+)\(", line)
                if m:
                    names.add(m.group(1))
    # exit/exit_group and the exec itself happen outside the filter's life.
    names -= {"execve"}
    blocked = sorted(n for n in names if n not in allow or n in deny)
    print(f"syscalls traced: {len(names)} (collectors: {', '.join(collectors)})")
    if blocked:
        print("outside the unit's SystemCallFilter: " + ", ".join(blocked))
        return 1
    print("all allowed by the unit's SystemCallFilter")
    return 0


if __name__ == "__main__":
    sys.exit(main())
