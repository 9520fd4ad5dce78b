#!/usr/bin/env python3
"""Offline lint for the shipped Grafana dashboards and Prometheus rules.

Grafana's dashboard-linter cannot be installed here (no release downloads,
`go install` blocked by a replace directive), so this script implements its
rules that matter to us, plus two checks it does not have:

Dashboard rules (names follow grafana/dashboard-linter):
  uneditable-dashboard, id null, stable unique uid (<= 40 chars),
  template-datasource-rule, template-job-rule, template-instance-rule,
  template-on-time-change-reload-rule, panel-datasource-rule,
  panel-title-description-rule, panel-units-rule, panel-no-targets-rule,
  target-rate-interval-rule, target-job-rule, target-instance-rule,
  target-counter-agg-rule.
PromQL validity (target-promql-rule, template-label-promql-rule):
  every panel expression and every variable's selector is written, with
  $__rate_interval -> 5m and other variables -> .+, into a temporary rules
  file that `promtool check rules` must accept.
Metric names:
  every metric a dashboard query or a rule expression reads must be
  recorded by dashboards/rules/*.yaml or declared: the FamilyDesc names
  `rnic_metric_docs --names` prints (--metric-docs-bin; every collector's
  spec.families and the exporter's own), or a row of a table in
  docs/metrics.md (generated from the same declarations). Placeholders
  such as rnic_hw_<counter>_total match any name of that shape; histogram
  families also allow _bucket/_sum/_count.

Python standard library only. Exit status 0 = clean, 1 = findings.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# ---------------------------------------------------------------- PromQL lexer

KEYWORDS_WITH_LABELS = {"by", "without", "on", "ignoring", "group_left",
                        "group_right"}
BINARY_KEYWORDS = {"and", "or", "unless", "bool", "offset", "atan2"}
RANGE_FUNCTIONS = {"rate", "irate", "increase"}
TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`)
  | (?P<var>\$\{[A-Za-z0-9_:.]+\}|\$[A-Za-z0-9_]+|\[\[[A-Za-z0-9_]+\]\])
  | (?P<number>(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)
                (?:[a-zA-Z]+\d*)*)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=(){}\[\],:@])
""", re.X)


class Token:
    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        self.kind = kind
        self.text = text

    def __repr__(self):
        return f"{self.kind}:{self.text}"


def tokenize(expr):
    tokens = []
    pos = 0
    while pos < len(expr):
        m = TOKEN_RE.match(expr, pos)
        if not m:
            raise ValueError(f"cannot tokenize at {expr[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        tokens.append(Token(kind, m.group()))
    return tokens


def matching(tokens, i):
    """Index of the bracket closing tokens[i]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    want = pairs[tokens[i].text]
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j].text
        if tokens[j].kind != "op":
            continue
        if t == tokens[i].text:
            depth += 1
        elif t == want:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets")


class Selector:
    def __init__(self, name, matchers, index):
        self.name = name          # may be None
        self.matchers = matchers  # list of (label, op, value)
        self.index = index        # token index of the selector start


def parse_matchers(tokens, i, end):
    out = []
    j = i + 1
    while j < end:
        if tokens[j].kind in ("ident", "string") and j + 2 <= end:
            label = tokens[j].text.strip("\"'`")
            op = tokens[j + 1].text
            value = tokens[j + 2].text
            if value.startswith(("\"", "'")):
                value = value[1:-1]
            out.append((label, op, value))
            j += 3
        else:
            j += 1
    return out


def analyse(expr):
    """Returns (selectors, range function spans, ranges) of one expression.

    A range is (token index, text inside the brackets)."""
    tokens = tokenize(expr)
    selectors, spans, ranges = [], [], []
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < n else None
        if t.kind == "ident":
            word = t.text
            if word in KEYWORDS_WITH_LABELS:
                if nxt is not None and nxt.text == "(":
                    i = matching(tokens, i + 1) + 1
                    continue
                i += 1
                continue
            if word in BINARY_KEYWORDS:
                i += 1
                continue
            if nxt is not None and nxt.text == "(":
                if word in RANGE_FUNCTIONS:
                    spans.append((i + 1, matching(tokens, i + 1)))
                i += 1
                continue
            # Aggregation written as `sum by (x) (...)`.
            if nxt is not None and nxt.kind == "ident" and \
                    nxt.text in ("by", "without"):
                i += 1
                continue
            matchers = []
            j = i + 1
            if nxt is not None and nxt.text == "{":
                end = matching(tokens, i + 1)
                matchers = parse_matchers(tokens, i + 1, end)
                j = end + 1
            selectors.append(Selector(word, matchers, i))
            i = j
            continue
        if t.text == "{":
            end = matching(tokens, i)
            matchers = parse_matchers(tokens, i, end)
            name = next((v for l, o, v in matchers
                         if l == "__name__" and o == "="), None)
            selectors.append(Selector(name, matchers, i))
            i = end + 1
            continue
        if t.text == "[":
            end = matching(tokens, i)
            ranges.append((i, "".join(x.text for x in tokens[i + 1:end])))
            i = end + 1
            continue
        i += 1
    return selectors, spans, ranges


def inside(index, spans):
    return any(a < index < b for a, b in spans)


VAR_IN_STRING_RE = re.compile(
    r"\$\{[A-Za-z0-9_:.]+\}|\$[A-Za-z0-9_]+|\[\[[A-Za-z0-9_]+\]\]")


def substitute(expr):
    """Grafana variables -> values promtool accepts."""
    expr = expr.replace("$__rate_interval", "5m").replace(
        "${__rate_interval}", "5m")
    expr = expr.replace("$__interval", "1m").replace("${__interval}", "1m")
    expr = expr.replace("$__range", "1h").replace("${__range}", "1h")
    out = []
    for tok in re.split(r'("(?:\\.|[^"\\])*")', expr):
        if tok.startswith('"'):
            tok = VAR_IN_STRING_RE.sub(".+", tok)
        else:
            tok = VAR_IN_STRING_RE.sub("1", tok)
        out.append(tok)
    return "".join(out)


LABEL_VALUES_RE = re.compile(r"^\s*label_values\((.*),\s*([A-Za-z_]\w*)\s*\)\s*$",
                             re.S)
QUERY_RESULT_RE = re.compile(r"^\s*query_result\((.*)\)\s*$", re.S)


def variable_promql(query):
    """PromQL inside a Prometheus template query, or None."""
    m = LABEL_VALUES_RE.match(query)
    if m:
        return m.group(1)
    m = QUERY_RESULT_RE.match(query)
    if m:
        return m.group(1)
    if query.strip().startswith(("label_names(", "metrics(")):
        return None
    return query


# ------------------------------------------------------------- rules parsing


def read_rule_exprs(path):
    """(kind, name, expr) for every rule; a small parser for our YAML style.

    Handles `expr: <one line>` and block scalars (`expr: |` / `>-`)."""
    lines = open(path, encoding="utf-8").read().splitlines()
    out = []
    name, kind = None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^\s*-?\s*(record|alert):\s*(\S+)\s*$", line)
        if m:
            kind, name = m.group(1), m.group(2)
        m = re.match(r"^(\s*)-?\s*expr:\s*(.*)$", line)
        if m:
            indent = len(m.group(1))
            rest = m.group(2).strip()
            if rest in ("|", "|-", "|+", ">", ">-", ">+"):
                body = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or
                                          len(lines[i]) - len(lines[i].lstrip())
                                          > indent):
                    body.append(lines[i])
                    i += 1
                out.append((kind, name, "\n".join(body).strip()))
                continue
            if rest[:1] in ("'", '"'):
                rest = rest[1:-1]
            out.append((kind, name, rest))
        i += 1
    return out


# ---------------------------------------------------------- documented names

DOCS_ROW_RE = re.compile(r"^\|\s*`(rnic_[A-Za-z0-9_<>]+)`", re.M)


def docs_page_names(repo):
    """Metric names in the table rows of docs/metrics.md."""
    page = os.path.join(repo, "docs", "metrics.md")
    if not os.path.exists(page):
        return set()
    return set(DOCS_ROW_RE.findall(open(page, encoding="utf-8").read()))


def declared_names(docs_bin):
    """Every declared family name, one a line from `rnic_metric_docs --names`
    (templates keep their <placeholder>). Raises on a failing binary."""
    proc = subprocess.run([docs_bin, "--names"], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{docs_bin} --names exited {proc.returncode}: "
                           f"{proc.stderr.strip()}")
    return {line.strip() for line in proc.stdout.splitlines() if line.strip()}


def read_pending(path):
    """name -> branch from lines `name  # branch` (missing file: empty)."""
    out = {}
    if not path or not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8"):
        name, _, comment = line.partition("#")
        name = name.strip()
        if name:
            out[name] = (comment.split() or ["?"])[0].rstrip(",")
    return out


# Series of other exporters the rules join on purpose (rnic_gpu_rules.yaml:
# dcgm-exporter's GPU activity, NCCL Inspector's bandwidth); a name here is
# one the joins document.
FOREIGN_METRICS = {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "nccl_bus_bandwidth_gbs"}


def name_matcher(doc_names, recorded):
    exact = (set(recorded) | {"up", "ALERTS", "ALERTS_FOR_STATE"}
             | FOREIGN_METRICS)
    patterns = []
    for name in doc_names:
        if "<" in name:
            parts = re.split(r"<[^>]*>", name)
            patterns.append(re.compile(
                "^" + "[A-Za-z0-9_]+".join(map(re.escape, parts)) + "$"))
        else:
            exact.add(name)

    def known(metric):
        candidates = [metric]
        for suffix in ("_bucket", "_sum", "_count"):
            if metric.endswith(suffix):
                candidates.append(metric[: -len(suffix)])
        return any(c in exact or any(p.match(c) for p in patterns)
                   for c in candidates)

    return known


# ------------------------------------------------------------- dashboard lint


class Findings:
    def __init__(self):
        self.items = []

    def add(self, where, rule, message):
        self.items.append(f"{where}: [{rule}] {message}")


def uses_datasource_var(ds):
    if isinstance(ds, dict):
        uid = str(ds.get("uid", ""))
    else:
        uid = str(ds or "")
    return uid in ("$datasource", "${datasource}")


def walk_panels(panels):
    for p in panels:
        yield p
        for sub in p.get("panels", []) or []:
            yield sub


def lint_dashboard(path, dash, findings, exprs, uids):
    name = os.path.basename(path)
    if dash.get("id", "missing") is not None:
        findings.add(name, "dashboard-id", '"id" must be null')
    uid = dash.get("uid")
    if not uid or not re.match(r"^[A-Za-z0-9_-]{1,40}$", str(uid)):
        findings.add(name, "dashboard-uid",
                     "uid must be set, <= 40 chars of [A-Za-z0-9_-]")
    elif uid in uids:
        findings.add(name, "dashboard-uid", f"uid {uid} also used by {uids[uid]}")
    else:
        uids[uid] = name
    if dash.get("editable") is not False:
        findings.add(name, "uneditable-dashboard", '"editable" must be false')
    if not dash.get("title"):
        findings.add(name, "dashboard-title", "title is empty")

    variables = dash.get("templating", {}).get("list", [])
    ds_vars = [v for v in variables if v.get("type") == "datasource"]
    if len(ds_vars) != 1 or not re.match(r"^(\w+_)?datasource$",
                                         ds_vars[0].get("name", "")):
        findings.add(name, "template-datasource-rule",
                     "exactly one datasource variable named 'datasource'")
    else:
        v = ds_vars[0]
        if v.get("label") != "Data source":
            findings.add(name, "template-datasource-rule",
                         "datasource variable label must be 'Data source'")
        if v.get("query") != "prometheus":
            findings.add(name, "template-datasource-rule",
                         "datasource variable must select prometheus")
    by_name = {v.get("name"): v for v in variables}
    for required in ("job", "instance"):
        v = by_name.get(required)
        rule = f"template-{required}-rule"
        if v is None:
            findings.add(name, rule, f"missing variable '{required}'")
            continue
        if v.get("label") != required:
            findings.add(name, rule, f"label must be '{required}'")
        if v.get("type") != "query":
            findings.add(name, rule, "must be a query variable")
        if not uses_datasource_var(v.get("datasource")):
            findings.add(name, rule, "must query ${datasource}")
        if not v.get("multi") or not v.get("includeAll"):
            findings.add(name, rule, "must be multi-select with 'All'")
        if v.get("allValue") != ".+":
            findings.add(name, rule, 'allValue must be ".+"')
    for v in variables:
        if v.get("type") != "query":
            continue
        where = f"{name} variable {v.get('name')}"
        if v.get("refresh") != 2:
            findings.add(where, "template-on-time-change-reload-rule",
                         "refresh must be 2 (on time range change)")
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else (q or "")
        promql = variable_promql(q)
        if promql is not None:
            exprs.append((where, promql))

    ids = set()
    for p in walk_panels(dash.get("panels", [])):
        ptype = p.get("type")
        title = p.get("title", "")
        where = f"{name} panel '{title}'"
        if p.get("id") in ids:
            findings.add(where, "panel-id", f"duplicate id {p.get('id')}")
        ids.add(p.get("id"))
        if "gridPos" not in p:
            findings.add(where, "panel-gridpos", "missing gridPos")
        if ptype in ("row", "text", "news", "dashlist"):
            continue
        if not title.strip() or not p.get("description", "").strip():
            findings.add(where, "panel-title-description-rule",
                         "needs a title and a description")
        if not uses_datasource_var(p.get("datasource")):
            findings.add(where, "panel-datasource-rule",
                         "panel datasource must be ${datasource}")
        unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
        if not unit:
            findings.add(where, "panel-units-rule", "no unit set")
        targets = p.get("targets") or []
        if not targets:
            findings.add(where, "panel-no-targets-rule", "panel has no targets")
        for idx, t in enumerate(targets):
            twhere = f"{where} target {t.get('refId', idx)}"
            if "datasource" in t and not uses_datasource_var(t["datasource"]):
                findings.add(twhere, "panel-datasource-rule",
                             "target datasource must be ${datasource}")
            expr = t.get("expr", "")
            if not expr.strip():
                findings.add(twhere, "target-promql-rule", "empty expression")
                continue
            exprs.append((twhere, expr))
            lint_target(twhere, expr, findings)


def lint_target(where, expr, findings):
    try:
        selectors, spans, ranges = analyse(expr)
    except ValueError as e:
        findings.add(where, "target-promql-rule", str(e))
        return
    for idx, text in ranges:
        if inside(idx, spans) and text not in ("$__rate_interval",
                                                "${__rate_interval}"):
            findings.add(where, "target-rate-interval-rule",
                         f"rate/irate/increase over [{text}], "
                         "use [$__rate_interval]")
    for sel in selectors:
        labels = {l for l, _, _ in sel.matchers}
        for required in ("job", "instance"):
            if required not in labels:
                findings.add(where, f"target-{required}-rule",
                             f"selector {sel.name or '{...}'} lacks a "
                             f"matcher on {required}")
        if sel.name and sel.name.endswith("_total") and \
                not inside(sel.index, spans):
            findings.add(where, "target-counter-agg-rule",
                         f"counter {sel.name} outside rate/irate/increase")


def metric_names(expr):
    selectors, _, _ = analyse(expr)
    return {s.name for s in selectors if s.name}


def promtool_check(exprs, findings, promtool):
    """Writes every expression as a recording rule; promtool must accept it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dashboard_queries.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("groups:\n  - name: dashboard_queries\n    rules:\n")
            for i, (_, expr) in enumerate(exprs):
                f.write(f"      - record: dashboard_query_{i}\n")
                f.write("        expr: " + json.dumps(substitute(expr)) + "\n")
        proc = subprocess.run([promtool, "check", "rules", path],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            report = proc.stdout + proc.stderr
            flagged = set(int(m) for m in
                          re.findall(r"dashboard_query_(\d+)", report))
            for i in sorted(flagged):
                findings.add(exprs[i][0], "target-promql-rule",
                             f"promtool rejects {exprs[i][1]!r}")
            if not flagged:
                findings.add("promtool", "target-promql-rule", report.strip())
        return proc.returncode == 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=default_repo, help="repository root")
    ap.add_argument("--promtool", default=shutil.which("promtool") or "promtool")
    ap.add_argument("--require-docs", action="store_true",
                    help="fail (not skip) the metric-name check when the "
                         "declared names are unavailable (no or a failing "
                         "--metric-docs-bin)")
    ap.add_argument("--metric-docs-bin", metavar="PATH",
                    help="rnic_metric_docs binary: `--names` lists every "
                         "declared metric family")
    ap.add_argument("--pending", default=os.path.join(here, "pending_metrics.txt"),
                    help="names documented by collectors on branches not yet "
                         "merged (accepted; reported once documented here)")
    ap.add_argument("--emit-queries", metavar="FILE",
                    help="write every dashboard query, variables substituted "
                         "as for promtool, to FILE as JSON [{where, expr}] "
                         "(for tiers that evaluate them on a real Prometheus)")
    ap.add_argument("dashboards", nargs="*",
                    help="dashboard JSON files (default dashboards/grafana/*.json)")
    args = ap.parse_args()

    files = args.dashboards or sorted(
        glob.glob(os.path.join(args.repo, "dashboards", "grafana", "*.json")))
    rule_files = sorted(
        glob.glob(os.path.join(args.repo, "dashboards", "rules", "*.yaml")) +
        glob.glob(os.path.join(args.repo, "dashboards", "alerts", "*.yaml")))
    findings = Findings()
    if not files:
        findings.add("dashboards/grafana", "files", "no dashboard JSON found")

    exprs, uids = [], {}
    for path in files:
        try:
            dash = json.load(open(path, encoding="utf-8"))
        except ValueError as e:
            findings.add(os.path.basename(path), "json", str(e))
            continue
        lint_dashboard(path, dash, findings, exprs, uids)

    if args.emit_queries:
        with open(args.emit_queries, "w", encoding="utf-8") as f:
            json.dump([{"where": w, "expr": substitute(e)} for w, e in exprs],
                      f, indent=1)

    if shutil.which(args.promtool) or os.path.exists(args.promtool):
        if exprs:
            promtool_check(exprs, findings, args.promtool)
    else:
        findings.add("promtool", "target-promql-rule",
                     f"{args.promtool} not found; cannot validate PromQL")

    # Metric names: dashboards and rules read only what exists.
    recorded = set()
    rule_exprs = []
    for path in rule_files:
        for kind, name, expr in read_rule_exprs(path):
            if kind == "record":
                recorded.add(name)
            rule_exprs.append((f"{os.path.relpath(path, args.repo)} {kind} {name}",
                               expr))
    declared = set()
    if args.metric_docs_bin:
        try:
            declared = declared_names(args.metric_docs_bin)
        except (OSError, RuntimeError) as e:
            findings.add("rnic_metric_docs", "metric-documented", str(e))
    if not declared and args.require_docs:
        findings.add("rnic_metric_docs", "metric-documented",
                     "no declared metric names (pass --metric-docs-bin "
                     "<build>/exporter/rnic_metric_docs)")
    docs = declared | docs_page_names(args.repo)
    print(f"lint: {len(files)} dashboards, {len(exprs)} queries, "
          f"{len(rule_exprs)} rule expressions, {len(recorded)} recorded "
          f"names, {len(declared)} declared and {len(docs)} documented "
          "metric names")
    pending = read_pending(args.pending)
    if docs:
        known = name_matcher(docs, recorded)
        unknown = {}
        used_pending = set()
        for where, expr in exprs + rule_exprs:
            try:
                names = metric_names(expr)
            except ValueError:
                continue  # reported by the target checks
            for m in sorted(names):
                if known(m):
                    continue
                if m in pending:
                    used_pending.add(m)
                else:
                    unknown.setdefault(m, where)
        if used_pending:
            branches = sorted({pending[m] for m in used_pending})
            print(f"lint: {len(used_pending)} names accepted from "
                  f"{os.path.basename(args.pending)} (collectors not merged "
                  f"yet: {', '.join(branches)})")
        stale = sorted(m for m in pending if known(m))
        if stale:
            print(f"lint: note: {len(stale)} names in "
                  f"{os.path.basename(args.pending)} are documented now; "
                  "delete them from it: " + ", ".join(stale))
        for m, where in sorted(unknown.items()):
            findings.add(where, "metric-documented",
                         f"{m} is neither recorded by a rule nor declared "
                         "(rnic_metric_docs --names, docs/metrics.md)")
    elif not args.require_docs:
        print("lint: SKIP metric-name check: no --metric-docs-bin and no "
              "docs/metrics.md "
              "(use --require-docs to fail instead)")

    for item in findings.items:
        print(item)
    if findings.items:
        print(f"lint: {len(findings.items)} finding(s)")
        return 1
    print("lint: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
