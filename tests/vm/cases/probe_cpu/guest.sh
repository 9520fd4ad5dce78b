# CPU cost of the probe with default settings (no probe: section at all) on
# rxe0 and rxe1 over 60 s: rnic_probe_cpu_seconds_total (thread CPU time of
# the probe threads) and the whole exporter's utime+stime from /proc. Under
# TCG every instruction is emulated, so these figures are far above what
# the same code costs on a real host, and rxe does the whole RoCE transport
# (packet building, ICRC, the responder) in kernel time charged to the
# posting thread, which a real NIC does in hardware: the user/system split
# shows how much is the probe itself. The case only reports the figures.
M=/tmp/m.prom
snap() { scrape >$M || fail "scrape failed"; }
val() {
  awk -v n="$1" -v re="${2:-}" '
    index($0, n) == 1 && (substr($0, length(n) + 1, 1) == "{" || substr($0, length(n) + 1, 1) == " ") && $0 ~ re { s += $NF; f = 1 }
    END { if (f) printf "%.9g\n", s; else print "NA" }' $M
}
ticks() { awk '{ print $14 + $15 }' /proc/$EXPORTER_PID/stat; }
uticks() { awk '{ print $14 }' /proc/$EXPORTER_PID/stat; }
DUR=${PROBE_CPU_SECONDS:-60}
start_exporter --collector.disable-defaults --collector.probe
sleep 5  # past the first round and the first MR measurement
snap; c0=$(val rnic_probe_cpu_seconds_total); i0=$(val rnic_probe_iterations_total); t0=$(ticks); u0=$(uticks); w0=$(up)
sleep $DUR
snap; c1=$(val rnic_probe_cpu_seconds_total); i1=$(val rnic_probe_iterations_total); t1=$(ticks); u1=$(uticks); w1=$(up)
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
report=$(awk -v c0=$c0 -v c1=$c1 -v i0=$i0 -v i1=$i1 -v t0=$t0 -v t1=$t1 -v u0=$u0 -v u1=$u1 -v w0=$w0 -v w1=$w1 -v hz=$hz 'BEGIN {
  w = w1 - w0
  printf "wall=%.1fs probe_cpu=%.3fs (%.2f%% of one core) exporter_cpu=%.3fs (%.2f%%; user %.3fs, system %.3fs) ops=%d cpu_per_op=%.1fus",
    w, c1 - c0, 100 * (c1 - c0) / w, (t1 - t0) / hz, 100 * (t1 - t0) / hz / w,
    (u1 - u0) / hz, (t1 - t0 - u1 + u0) / hz, i1 - i0, 1e6 * (c1 - c0) / (i1 - i0) }')
say "default settings, TCG: $report"
echo "$report" >"$VMOUT/cpu.txt"
cp $M "$VMOUT/metrics-final.prom"
[ "$(val rnic_probe_success)" = 2 ] || fail "probe not successful on both devices"
stop_exporter
