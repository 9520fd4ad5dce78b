#!/usr/bin/env bash
# Regenerates docs/metrics.md, docs/configuration.md, README.md's collector
# table and its configuration index from a build's rnic_metric_docs (default
# build dir: build).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
cmake --build "$B" --target rnic_metric_docs >/dev/null
RNIC_SOURCE_DIR=$PWD RNIC_METRIC_DOCS=$B/exporter/rnic_metric_docs \
  python3 tests/docs/check_docs.py --update
