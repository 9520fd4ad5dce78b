#!/usr/bin/env bash
# Long fuzz runs, one target at a time: run_long.sh <build dir> <seconds per
# target> [target...]. Each target keeps its corpus in <build
# dir>/tests/fuzz/corpus/<target> (grown from the seeds, reused by the next
# run); a crash is written to <build dir>/tests/fuzz/crashes/<target>-*.
# Prints executions and the outcome per target; exits 1 if any crashed.
set -uo pipefail
build=${1:?build dir}
secs=${2:?seconds per target}
shift 2
dir=$build/tests/fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd "$dir" && ls fuzz_* | grep -v '\.')
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$dir/crashes"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t"
  log=$dir/crashes/$t.log
  "$dir/$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$dir/crashes/$t-" \
    "$dir/corpus/$t" "$dir/seeds/$t" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "$t: ${execs:-?} executions, no crash"
  else
    failed=1
    echo "$t: CRASH after ${execs:-?} executions (exit $rc), see $log:"
    grep -m3 -E 'ERROR|runtime error|SUMMARY|terminate' "$log" | sed 's/^/    /'
  fi
done
exit $failed
