#!/usr/bin/env bash
# Compiles the dashboard sources (src/*.ts) and writes the dashboards' JSON
# next to this script; with --check, fails when a committed file differs.
#   dashboards/grafana/generate.sh [--check]
# Needs Node.js ($NODE, default node) and the packages package-lock.json
# pins in node_modules/ (`npm ci` here; setup.sh runs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node=${NODE:-node}
if ! command -v "$node" >/dev/null; then
  echo "generate.sh: $node not found (setup.sh installs nodejs)" >&2
  exit 1
fi
"$node" "$here/check-installed.js" "$here"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$node" "$here/node_modules/typescript/bin/tsc" -p "$here" --outDir "$out"
# The compiled files live outside the tree: resolve the SDK from here.
NODE_PATH="$here/node_modules" "$node" "$out/generate.js" --out "$here" "$@"
