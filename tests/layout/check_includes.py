#!/usr/bin/env python3
"""Checks the layering of collectors/ and exporter/ by their #include lines.

Each source file sits on a layer; it may include its own folder and any
lower layer, never a higher one, and never a sibling of its rank (another
collector, say):

  0  collectors/common/    errors, fds, the one reader and lister, logging
  1  collectors/metrics/   families, label sets, MetricSet
  2  collectors/host/      the host model (topology)
  3  collectors/nl/        netlink transport and shared netlink sources
  3  collectors/probing/   what the probe and the fabric probe share
  4  collectors/*.h, *.cc  the Collector interface, options, specs
  5  collectors/<name>/    one collector each
  6  collectors/all_collectors.cc   the table of every collector
  7  exporter/
  8  *_main.cc             programs: link whatever they run

Includes of anything else (system headers, tests/) are not checked.

Usage: check_includes.py SOURCE_ROOT      exit 1 and one line per fault
       check_includes.py --self-test      the rules on made-up trees
"""

import os
import re
import sys
import tempfile

SHARED = {"common": 0, "metrics": 1, "host": 2, "nl": 3, "probing": 3}
API, COLLECTOR, TABLE, EXPORTER, PROGRAM = 4, 5, 6, 7, 8
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_EXT = (".h", ".cc", ".c")


def layer(path):
    """(rank, name) of a path from the source root, or None if unchecked."""
    parts = path.split("/")
    if parts[-1].endswith("_main.cc"):
        return PROGRAM, "program " + path
    if parts[0] == "exporter":
        return EXPORTER, "exporter"
    if parts[0] != "collectors" or len(parts) < 2:
        return None
    if len(parts) == 2:
        if parts[1] == "all_collectors.cc":
            return TABLE, "collector table"
        return API, "collector interface"
    if parts[1] in SHARED:
        return SHARED[parts[1]], parts[1]
    return COLLECTOR, "collector " + parts[1]


def sources(root):
    for top in ("collectors", "exporter"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    full = os.path.join(dirpath, f)
                    yield os.path.relpath(full, root).replace(os.sep, "/")


def faults(root):
    out = []
    for src in sorted(sources(root)):
        here = layer(src)
        with open(os.path.join(root, src), encoding="utf-8",
                  errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                there = layer(target)
                if here is None or there is None or here[1] == there[1]:
                    continue
                where = f"{src}:{lineno}: includes {target}"
                if there[0] > here[0]:
                    out.append(f"{where}: upward, {here[1]} (layer {here[0]}) "
                               f"below {there[1]} (layer {there[0]})")
                elif there[0] == here[0]:
                    kind = ("one collector into another"
                            if here[0] == COLLECTOR else "sibling layers")
                    out.append(f"{where}: {kind}, {here[1]} and {there[1]}")
    return out


def self_test():
    """Each rule fires on a made-up tree, and a clean tree passes."""
    cases = {
        "clean": ({
            "collectors/common/result.h": "",
            "collectors/metrics/family.h": '#include "collectors/common/result.h"',
            "collectors/host/host_model.h": '#include "collectors/metrics/family.h"',
            "collectors/sysfs/sysfs_collector.cc":
                '#include "collectors/host/host_model.h"\n'
                '#include "collectors/collector.h"\n#include <vector>',
            "collectors/all_collectors.cc":
                '#include "collectors/sysfs/sysfs_collector.h"',
            "collectors/probe/probe_tool_main.cc":
                '#include "collectors/kmsg/kmsg_collector.h"',
            "exporter/main.cc": '#include "tests/tools/hooks.h"',
        }, 0),
        "common includes metrics": ({
            "collectors/common/metric_set.h":
                '#include "collectors/metrics/family.h"',
        }, 1),
        "metrics includes host": ({
            "collectors/metrics/label_set.h":
                '#include "collectors/host/host_model.h"',
        }, 1),
        "collector into collector": ({
            "collectors/fabric/rc_link.h":
                '  #  include "collectors/probe/probe_config.h"',
        }, 1),
        "sibling shared layers": ({
            "collectors/nl/transport.h":
                '#include "collectors/probing/operation.h"',
        }, 1),
        "interface includes a collector": ({
            "collectors/collector_spec.h":
                '#include "collectors/netlink/transport.h"',
        }, 1),
        "collector includes exporter": ({
            "collectors/sysfs/x.cc": '#include "exporter/registry.h"',
        }, 1),
    }
    failed = 0
    for name, (files, want) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                full = os.path.join(root, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
            got = faults(root)
            if len(got) != want:
                failed += 1
                print(f"self-test {name}: {len(got)} faults, want {want}: {got}")
    return failed


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = faults(argv[1])
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) against the layering: move what two "
              "folders share down to a layer both may include "
              "(docs/development.md)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
