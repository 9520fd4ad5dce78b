#!/usr/bin/env bash
# Whole-process CPU per scrape of rnic_exporter on this host, scraped the way
# Prometheus does (one kept-alive connection, gzip): HTTP, collectors,
# serialization and compression all count. Optionally profiled with perf.
#
# usage: tests/bench/scrape_cost.sh BUILD_DIR SYSFS_TREE SCRAPES [EXPORTER FLAGS...]
#   default flags: --collector.disable-defaults --collector.sysfs (sysfs-only)
#   PERF=FILE: record the exporter with `perf record -g` (frame pointers: build
#   with -DCMAKE_CXX_FLAGS=-fno-omit-frame-pointer) into FILE during the
#   scrapes, then print the top of `perf report --no-children`.
# Needs rnic_exporter and rnic_vm_scrape_cpu built in BUILD_DIR.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,11p "$0" >&2; exit 2; }
BUILD=$1 SYSFS=$2 SCRAPES=$3
shift 3
FLAGS=("$@")
[ ${#FLAGS[@]} -gt 0 ] || FLAGS=(--collector.disable-defaults --collector.sysfs)
EXPORTER=$BUILD/exporter/rnic_exporter
SCRAPER=$BUILD/tests/vm/tools/rnic_vm_scrape_cpu
for b in "$EXPORTER" "$SCRAPER"; do
  [ -x "$b" ] || { echo "missing $b (cmake --build $BUILD --target rnic_exporter rnic_vm_scrape_cpu)" >&2; exit 2; }
done
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$EXPORTER" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$SYSFS" \
  --path.devkmsg=/dev/null "${FLAGS[@]}" >/dev/null 2>&1 &
PID=$!
PERF_PID=
cleanup() {
  [ -z "$PERF_PID" ] || kill -INT "$PERF_PID" 2>/dev/null || true
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/metrics" && break
  sleep 0.1
done
# Warm-up outside the profile: first scrapes open files and size buffers.
"$SCRAPER" --pid "$PID" --port "$PORT" --scrapes 20 --warmup 0 --no-idle >/dev/null
if [ -n "${PERF:-}" ]; then
  perf record -g -o "$PERF" -p "$PID" 2>/dev/null &
  PERF_PID=$!
  sleep 1
fi
"$SCRAPER" --pid "$PID" --port "$PORT" --scrapes "$SCRAPES"
if [ -n "$PERF_PID" ]; then
  kill -INT "$PERF_PID"
  wait "$PERF_PID" || true
  PERF_PID=
  perf report -i "$PERF" --no-children --percent-limit 1 --stdio 2>/dev/null |
    grep -E '^ +[0-9]' | head -40
fi
