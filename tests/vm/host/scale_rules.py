#!/usr/bin/env python3
"""Write a copy of Prometheus rule files with every duration divided by a
factor, so a VM case sees the shipped alerts go pending, fire and resolve in
seconds instead of the minutes they wait for in production. The expressions,
thresholds and labels are the shipped ones; only time is compressed:
`for:` and `keep_firing_for:` values, a group's `interval:`, range selectors (`[5m]`, `[1h:1m]`)
and `offset` durations. A range never drops below 4 s (four samples at the
harness's 1 s scrape interval), so rate() keeps working.

usage: scale_rules.py FACTOR OUTDIR RULEFILE...
"""
import os
import re
import sys

UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800,
         "y": 31536000}
DURATION = r"(?:\d+(?:ms|[smhdwy]))+"
PART = re.compile(r"(\d+)(ms|[smhdwy])")


def seconds(text):
    total = 0.0
    for n, unit in PART.findall(text):
        total += int(n) * UNITS[unit]
    return total


def scaled(text, factor, floor):
    s = max(seconds(text) / factor, floor)
    return f"{int(round(s * 1000))}ms" if s < 10 else f"{int(round(s))}s"


def scale_expr(expr, factor):
    def rng(m):
        inner = m.group(1).split(":")
        out = [scaled(inner[0], factor, 4)] + [scaled(x, factor, 1) for x in inner[1:] if x]
        return "[" + ":".join(out) + ("]" if not m.group(1).endswith(":") else ":]")
    expr = re.sub(r"\[(" + DURATION + r"(?::(?:" + DURATION + r")?)?)\]", rng, expr)
    return re.sub(r"\boffset\s+(" + DURATION + r")",
                  lambda m: "offset " + scaled(m.group(1), factor, 1), expr)


def scale_file(text, factor):
    out = []
    for line in text.splitlines(keepends=True):
        m = re.match(r"^(\s*(?:for|keep_firing_for|interval):\s*)(" + DURATION + r")(\s*(?:#.*)?\n?)$",
                     line)
        if m:
            line = m.group(1) + scaled(m.group(2), factor, 1) + m.group(3)
        elif not line.lstrip().startswith("#"):
            line = scale_expr(line, factor)
        out.append(line)
    return "".join(out)


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    factor = float(argv[1])
    if not factor > 0:
        sys.exit(f"scale_rules.py: factor must be > 0, got {argv[1]}")
    os.makedirs(argv[2], exist_ok=True)
    for path in argv[3:]:
        with open(path) as f:
            text = f.read()
        dest = os.path.join(argv[2], os.path.basename(path))
        with open(dest, "w") as f:
            f.write(scale_file(text, factor))
        print(dest)


if __name__ == "__main__":
    main(sys.argv)
