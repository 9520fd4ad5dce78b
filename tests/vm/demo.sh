#!/usr/bin/env bash
# The demo for people without RDMA hardware: two Soft-RoCE VMs (qemu, TCG)
# running rnic_exporter with every collector, RDMA traffic between them, a
# loss episode and a link flap on a cycle, and a Prometheus with the shipped
# recording and alert rules on 127.0.0.1:9090. Browse the graphs and watch
# the alerts fire and clear; it stops after MINUTES (default 20) or Ctrl-C.
#   tests/vm/demo.sh [MINUTES]
# Knobs: DEMO_PROM_PORT (9090), DEMO_CYCLE (seconds, 120), DEMO_LOSS (3%),
# BUILD_DIR (build-demo). On a fresh Debian 12 machine run ./setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=${1:-20}
case $minutes in '' | *[!0-9]*) echo "usage: $0 [MINUTES]" >&2; exit 2 ;; esac
BUILD_DIR=${BUILD_DIR:-build-demo}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD_DIR" -j"$(nproc)"
export RNIC_VM_BUILD=$PWD/$BUILD_DIR/tests/vm
export RNIC_VM_EXPORTER=$PWD/$BUILD_DIR/exporter/rnic_exporter
export RNIC_VM_REQUIRE_EXPORTER=1
# The project's VM tools (the image has them too; the demo needs none).
RNIC_VM_BINS=$(find "$BUILD_DIR/tests/vm/tools" "$BUILD_DIR/tests/tools" -maxdepth 2 \
  -type f -executable -name 'rnic_*' 2>/dev/null | sed "s|^|$PWD/|" | tr '\n' ' ')
export RNIC_VM_BINS
export RNIC_VM_TIMEOUT=$((minutes * 60 + 120))
export RNIC_VM_PROM_PORT=${DEMO_PROM_PORT:-9090}
export DEMO_CYCLE=${DEMO_CYCLE:-120} DEMO_LOSS=${DEMO_LOSS:-3%}
tests/vm/run-case.sh tests/vm/demo
