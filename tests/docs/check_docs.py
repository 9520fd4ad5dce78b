"""Keeps the documentation in step with the code.

  metrics  docs/metrics.md equals `rnic_metric_docs --page` (generated from
           the metric declarations).
  readme   README.md's collector table equals `rnic_metric_docs --collectors`,
           every flag of `rnic_exporter --help` is documented there, README.md
           stays operator-sized, and the relative links of every markdown
           file name files and headings that exist.
  config   docs/configuration.md equals `rnic_metric_docs --config-page`
           and README.md's index of the sections (between the
           config-reference:begin/end markers) `rnic_metric_docs --config`
           (both generated from the declared --config.file sections).

--update rewrites docs/metrics.md, the README table and the configuration
reference instead of checking them (tests/docs/update_docs.sh)."""
import difflib
import os
import re
import subprocess
import sys

SRC = os.environ["RNIC_SOURCE_DIR"]
DOCS_BIN = os.environ["RNIC_METRIC_DOCS"]
EXPORTER = os.environ.get("RNIC_EXPORTER", "")
README = os.path.join(SRC, "README.md")
METRICS_MD = os.path.join(SRC, "docs", "metrics.md")
CONFIG_MD = os.path.join(SRC, "docs", "configuration.md")
# The hook that checks a change before it lands refuses a larger README;
# reference material belongs in docs/ or next to its code.
README_MAX_BYTES = 35000
BUILD = os.path.dirname(os.path.dirname(os.path.abspath(DOCS_BIN)))
REGENERATE = "tests/docs/update_docs.sh %s" % BUILD


def generated(*args):
    return subprocess.run([DOCS_BIN, *args], capture_output=True, text=True,
                          check=True).stdout


def differs(name, current, wanted, source="the metric declarations"):
    sys.stdout.writelines(difflib.unified_diff(
        current.splitlines(True), wanted.splitlines(True), name,
        "generated from the code"))
    print("%s differs from %s; regenerate it with: %s"
          % (name, source, REGENERATE))


def check_page(update, path, args, source):
    """A page of docs/ equals the generator's output for `args`."""
    wanted = generated(*args)
    name = os.path.relpath(path, SRC)
    current = open(path, encoding="utf-8").read() \
        if os.path.exists(path) else ""
    if update:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w", encoding="utf-8").write(wanted)
        print("%s written" % name)
        return 0
    if current != wanted:
        differs(name, current, wanted, source)
        return 1
    return 0


def check_metrics(update):
    return check_page(update, METRICS_MD, ["--page"], "the metric declarations")


def check_between(text, update, marker, what, args, source):
    """README.md's text between <!-- marker:begin --> and <!-- marker:end
    --> equals the generator's output for `args`."""
    begin, end = "<!-- %s:begin -->\n" % marker, "<!-- %s:end -->" % marker
    if begin not in text or end not in text:
        print("README.md lacks the %s:begin/end markers" % marker)
        return text, 1
    head, rest = text.split(begin, 1)
    current, tail = rest.split(end, 1)
    wanted = generated(*args)
    if update:
        text = head + begin + wanted + end + tail
        open(README, "w", encoding="utf-8").write(text)
        print("README.md %s written" % what)
        return text, 0
    if current != wanted:
        differs("README.md " + what, current, wanted, source)
        return text, 1
    return text, 0


def check_collector_table(text, update):
    return check_between(text, update, "collectors", "collector table",
                         ["--collectors"], "the collector declarations")


def check_config(update):
    source = "the declared --config.file sections"
    failures = check_page(update, CONFIG_MD, ["--config-page"], source)
    text = open(README, encoding="utf-8").read()
    _, more = check_between(text, update, "config-reference",
                            "configuration index", ["--config"], source)
    return failures + more


def check_flags(text):
    failures = 0
    helptext = subprocess.run([EXPORTER, "--help"], capture_output=True,
                              text=True, check=True).stdout
    flags = set(re.findall(r"--(?:\[no-\])?([a-z][a-z0-9._-]+)", helptext))
    for flag in sorted(flags):
        if flag.startswith("collector.") and flag.count(".") == 1:
            if "collector.<name>" in text:  # documented generically
                continue
        # --no-collector.<c>.<bool option> documents the option too.
        if "--" + flag not in text and \
                "-collector." + flag.split("collector.", 1)[-1] not in text:
            print("flag --%s is not documented in README.md" % flag)
            failures += 1
    return failures


def anchors(path):
    """The anchors GitHub gives the headings of a markdown file."""
    out, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def check_links(paths):
    """Relative links ([text](path), [text](path#anchor), [text](#anchor))
    name files that exist and, in markdown files, headings that exist."""
    failures = 0
    for path in paths:
        text = open(path, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            rel, _, anchor = target.partition("#")
            dest = os.path.join(os.path.dirname(path), rel) if rel else path
            why = None
            if not os.path.exists(dest):
                why = "which does not exist"
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                why = "which has no such heading"
            if why:
                print("%s links to %s, %s" % (os.path.relpath(path, SRC), target, why))
                failures += 1
    return failures


def markdown_files():
    """Every markdown file of the source tree (build trees left out)."""
    out = []
    for root, dirs, files in os.walk(SRC):
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith((".", "build")))
        out += [os.path.join(root, f) for f in sorted(files) if f.endswith(".md")]
    return out


def check_readme(update):
    text = open(README, encoding="utf-8").read()
    text, failures = check_collector_table(text, update)
    if update:
        return failures
    failures += check_flags(text)
    size = len(text.encode("utf-8"))
    if size > README_MAX_BYTES:
        print("README.md is %d bytes, more than %d: move reference material "
              "to docs/ or next to its code" % (size, README_MAX_BYTES))
        failures += 1
    failures += check_links(markdown_files())
    return failures


def main():
    update = "--update" in sys.argv
    parts = [a for a in sys.argv[1:] if not a.startswith("--")] or \
        ["metrics", "readme", "config"]
    failures = 0
    for part in parts:
        failures += {"metrics": check_metrics, "readme": check_readme,
                     "config": check_config}[part](update)
    print("%s: %d failed" % (", ".join(parts), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
