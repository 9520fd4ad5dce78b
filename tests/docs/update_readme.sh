#!/usr/bin/env bash
# Regenerates README.md's generated tables from a build (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RNIC_SOURCE_DIR=$PWD RNIC_METRIC_DOCS=$B/exporter/rnic_metric_docs RNIC_EXPORTER=$B/exporter/rnic_exporter \
  python3 tests/docs/check_readme.py --update
