#!/usr/bin/env bash
# Compiles the dashboard sources (generator/src/*.ts) and writes the
# dashboards' JSON next to this script; with --check, fails when a committed
# file differs from what the sources write.
#   dashboards/grafana/generate.sh [--check]
# Needs Node.js ($NODE, default node) and the packages
# generator/package-lock.json pins in generator/node_modules/
# (`npm ci --prefix dashboards/grafana/generator`; setup.sh runs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/generator
node=${NODE:-node}
if ! command -v "$node" >/dev/null; then
  echo "generate.sh: $node not found (setup.sh installs nodejs)" >&2
  exit 1
fi
"$node" "$gen/check-installed.js" "$gen"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$node" "$gen/node_modules/typescript/bin/tsc" -p "$gen" --outDir "$out"
# The compiled files live outside the tree: resolve the SDK from generator/.
NODE_PATH="$gen/node_modules" "$node" "$out/generate.js" --out "$here" "$@"
