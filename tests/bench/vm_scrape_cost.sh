#!/usr/bin/env bash
# Issue 9, target 1: CPU per default scrape of rnic_exporter on 16 Soft-RoCE
# ports in the qemu harness, next to the bare kernel cost of the same netlink
# information (rnic_floor) and each default collector alone, in ONE VM run.
#
# usage: tests/bench/vm_scrape_cost.sh [BUILD_DIR]     (default: build-rel)
#   BUILD_DIR: a non-sanitized Release build with rnic_exporter, rnic_floor
#   and rnic_vm_scrape_cpu built (the script says what to build if missing).
# Environment: SCRAPES (per configuration, default 40), ROUNDS (floor rounds
#   per part, default 96), BLOCKS (interleaved blocks they are split into,
#   default 8), CONFIGS (default "default none sysfs roce netlink_stat
#   netlink_resource kmsg pcie carrier ethtool"), PERF (1 or a configuration
#   name: also profile that exporter in the guest: perf.txt), BASELINE (another
#   rnic_exporter binary, say main's: run as configuration "baseline", the
#   default collectors, interleaved with the others: an A/B comparison in one
#   VM run, where run-to-run drift under TCG is larger than most changes),
#   RNIC_VM_ACCEL (tcg-icount, the default: guest CPU time counts
#   instructions; tcg: emulated time, noisy), RNIC_VM_LOCK (a lock file: held with flock while
#   the VM runs, so VM runs on a shared machine never overlap), and the
#   tests/vm knobs (RNIC_VM_SMP, RNIC_VM_MEM, ...).
# Prints the table (tests/bench/vm_cost_table.py); raw figures are in
# BUILD_DIR/tests/vm/runs/vm_scrape_cost/vm0/bench.txt.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/../.." && pwd)
BUILD=${1:-$REPO_DIR/build-rel}
[ -d "$BUILD" ] || { echo "no build dir $BUILD" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)

if [ -n "${RNIC_VM_LOCK:-}" ] && [ -z "${RNIC_VM_LOCKED:-}" ]; then
  RNIC_VM_LOCKED=1 exec flock "$RNIC_VM_LOCK" "$0" "$BUILD"
fi

EXPORTER=$BUILD/exporter/rnic_exporter
FLOOR=$BUILD/tests/vm/tools/rnic_floor
SCRAPER=$BUILD/tests/vm/tools/rnic_vm_scrape_cpu
for b in "$EXPORTER" "$FLOOR" "$SCRAPER"; do
  if [ ! -x "$b" ]; then
    echo "missing $b; build it: cmake --build $BUILD --target rnic_exporter rnic_floor rnic_vm_scrape_cpu" >&2
    exit 2
  fi
done

# The case directory gets the parameters as /case/params.sh.
CASE=$BUILD/tests/bench/vm_scrape_cost
rm -rf "$CASE"
mkdir -p "$CASE"
cp "$BENCH_DIR/vm_scrape_cost/guest.sh" "$BENCH_DIR/vm_scrape_cost/case.conf" "$CASE/"
EXTRA_BINS=
if [ -n "${BASELINE:-}" ]; then
  [ -x "$BASELINE" ] || { echo "BASELINE=$BASELINE is not an executable" >&2; exit 2; }
  # Under its own name in the guest's /usr/bin.
  mkdir -p "$CASE/bin"
  cp "$BASELINE" "$CASE/bin/rnic_exporter_baseline"
  EXTRA_BINS=$CASE/bin/rnic_exporter_baseline
  CONFIGS=${CONFIGS:-default none sysfs roce netlink_stat netlink_resource kmsg pcie carrier ethtool}
  case " $CONFIGS " in *" baseline "*) ;; *) CONFIGS="$CONFIGS baseline" ;; esac
fi
{
  [ -z "${SCRAPES:-}" ] || echo "SCRAPES=$SCRAPES"
  [ -z "${ROUNDS:-}" ] || echo "ROUNDS=$ROUNDS"
  [ -z "${CONFIGS:-}" ] || echo "CONFIGS='$CONFIGS'"
  [ -z "${BLOCKS:-}" ] || echo "BLOCKS=$BLOCKS"
  [ -z "${PERF:-}" ] || echo "PERF=$PERF"
  echo "ACCEL=${RNIC_VM_ACCEL:-tcg-icount}"
} >"$CASE/params.sh"

export RNIC_VM_BUILD=$BUILD/tests/vm
# By default the guest's clock counts instructions (qemu -icount, one vCPU):
# CPU time in the guest is then the instructions a process ran, the same in
# every run and whatever the host is doing (an A/A run reads 1.000 +- 0.000),
# and not weighted by what each instruction costs to emulate. RNIC_VM_ACCEL=tcg
# measures emulated time instead (2 vCPUs; +-10 % per run, host-dependent).
export RNIC_VM_ACCEL=${RNIC_VM_ACCEL:-tcg-icount}
if [ "$RNIC_VM_ACCEL" = tcg-icount ]; then export RNIC_VM_SMP=${RNIC_VM_SMP:-1}; fi
export RNIC_VM_EXPORTER=$EXPORTER RNIC_VM_REQUIRE_EXPORTER=1
export RNIC_VM_BINS="$FLOOR $SCRAPER${EXTRA_BINS:+ $EXTRA_BINS}"
# PERF=1: perf record of the default exporter in the guest after the blocks
# (perf.txt next to bench.txt); perf comes from the host's linux-perf.
if [ -n "${PERF:-}" ]; then
  command -v perf >/dev/null || { echo "PERF=1 needs perf (apt-get install linux-perf)" >&2; exit 2; }
  RNIC_VM_BINS="$RNIC_VM_BINS $(readlink -f "$(command -v perf)")"
fi
export RNIC_VM_RUN_DIR=$RNIC_VM_BUILD/runs/vm_scrape_cost
rc=0
"$REPO_DIR/tests/vm/run-case.sh" "$CASE" || rc=$?
RESULTS=$RNIC_VM_RUN_DIR/vm0/bench.txt
if [ -s "$RESULTS" ]; then
  python3 "$BENCH_DIR/vm_cost_table.py" "$RESULTS"
fi
# PERF: the two profiles side by side in microseconds per scrape and round.
if [ -s "$RNIC_VM_RUN_DIR/vm0/perf.txt" ] && [ -s "$RNIC_VM_RUN_DIR/vm0/perf-floor.txt" ]; then
  python3 "$BENCH_DIR/perf_diff.py" "$RNIC_VM_RUN_DIR/vm0" >"$RNIC_VM_RUN_DIR/vm0/perf-diff.txt" || true
  echo "profile against the floor, per scrape: $RNIC_VM_RUN_DIR/vm0/perf-diff.txt"
fi
exit "$rc"
