# The exporter as an unprivileged user (nobody), every collector on, first
# with no capability at all, then with the two the README's privileges table
# names for kmsg and perf (CAP_SYSLOG, CAP_PERFMON). What each collector does
# must match the table: sysfs, netlink_stat, netlink_resource, roce and the
# probe work without privileges; kmsg needs CAP_SYSLOG (dmesg_restrict=1) and
# perf CAP_PERFMON (a CPU-wide PMU event); a refused source costs its own
# series and one log line, never the scrape or the process.
CAP_SYSLOG=34
CAP_PERFMON=38
echo 1 >/proc/sys/kernel/dmesg_restrict
echo 2 >/proc/sys/kernel/perf_event_paranoid
RUN_AS=/usr/bin/rnic_vm_run_as
[ -x "$RUN_AS" ] || fail "rnic_vm_run_as is not in the initramfs"
FLAGS="--collector.probe --collector.perf --config.file=/case/exporter.yml"
REAL_EXPORTER=$EXPORTER

success() { val rnic_scrape_collector_success "collector=\"$1\""; }
# expect_success "COLLECTORS" WHAT: all of them succeed in one scrape. Under
# TCG on a busy host a scrape can miss its deadline; a collector refused for
# want of a privilege never succeeds, so re-scraping for 30 s cannot hide it.
expect_success() {
  _n=60
  while :; do
    _bad=""
    for _c in $1; do [ "$(success $_c)" = 1 ] || _bad="$_bad $_c"; done
    [ -z "$_bad" ] && return 0
    _n=$((_n - 1))
    [ $_n -gt 0 ] || fail "$2: collectors not succeeding:$_bad: $(grep -E "collector=($(echo $_bad | tr ' ' '|'))" "$EXPORTER_LOG" | tail -n 3)"
    usleep 500000
    snap
  done
}
run_as() {
  EXPORTER=/tmp/run-exporter.sh
  printf '#!/bin/sh\nexec %s 65534 65534 %s %s "$@"\n' "$RUN_AS" "$1" "$REAL_EXPORTER" >"$EXPORTER"
  chmod 755 "$EXPORTER"
  [ -s "$EXPORTER_LOG" ] && cp "$EXPORTER_LOG" "$VMOUT/exporter-before-$1.log"
  : >"$EXPORTER_LOG"
  start_exporter $FLAGS
  uid=$(awk '/^Uid:/ { print $2 }' /proc/$EXPORTER_PID/status)
  [ "$uid" = 65534 ] || fail "exporter runs as uid $uid, not nobody"
  say "exporter as nobody, capabilities $1: $(awk '/^CapEff:/ { print $2 }' /proc/$EXPORTER_PID/status)"
  # A few probe rounds and MR samples, so every collector has run.
  _n=100
  until snap && ge "$(val rnic_probe_rounds_total 'device="rxe0",port="1",result="ok"')" 3 &&
    ge "$(val rnic_probe_mr_registration_seconds_count)" 1; do
    _n=$((_n - 1)); [ $_n -gt 0 ] || fail "probe did not run as nobody: $(grep probe "$EXPORTER_LOG")"
    usleep 200000
  done
}

# --- no capabilities ---------------------------------------------------------
run_as none
expect_success "sysfs netlink_stat netlink_resource roce probe" "no capabilities"
ge "$(val rnic_port_state 'device="rxe0"')" 1 || fail "no sysfs port state as nobody"
ge "$(val rnic_resource_objects 'device="rxe0",resource="qp"')" 2 || fail "netlink_resource sees no QPs as nobody: $(grep rnic_resource_objects $M)"
[ "$(val rnic_perf_event_unavailable 'pmu="msr"')" = 1 ] ||
  fail "perf: msr/tsc should be unavailable without CAP_PERFMON: $(grep rnic_perf $M)"
grep 'collector=perf msg="event unavailable" pmu=msr' "$EXPORTER_LOG" | grep -q 'not permitted\|denied' ||
  fail "perf refusal not logged: $(grep collector=perf "$EXPORTER_LOG")"
kmsg_ok=$(success kmsg)
say "no capabilities: kmsg success $kmsg_ok; log: $(grep -c . "$EXPORTER_LOG") lines"
grep 'collector=kmsg' "$EXPORTER_LOG" | head -n 2
[ "$kmsg_ok" = 0 ] && grep -q 'collector=kmsg.*open /dev/kmsg: Operation not permitted' "$EXPORTER_LOG" ||
  fail "kmsg: /dev/kmsg is unreadable under dmesg_restrict=1 without CAP_SYSLOG, but success is $kmsg_ok and the log says: $(grep collector=kmsg "$EXPORTER_LOG")"
cp $M "$VMOUT/metrics-nocaps.prom"
# More scrapes add no log lines: a refused source is logged once (lib.sh's
# log_count leaves out lines about a slow emulated machine).
l0=$(log_count)
for i in 1 2 3 4 5 6 7 8 9 10; do scrape >/dev/null || fail "scrape $i failed"; done
l1=$(log_count)
[ "$l1" = "$l0" ] || { grep -v -E "$SLOW" "$EXPORTER_LOG" | tail -n $((l1 - l0)); fail "10 scrapes added $((l1 - l0)) log lines"; }
stop_exporter

# --- CAP_SYSLOG and CAP_PERFMON --------------------------------------------------
run_as $CAP_SYSLOG,$CAP_PERFMON
expect_success "sysfs netlink_stat netlink_resource roce probe kmsg perf" "CAP_SYSLOG,CAP_PERFMON"
[ "$(val rnic_perf_event_unavailable 'pmu="msr"')" = NA ] &&
  ge "$(val rnic_perf_events_total 'pmu="msr",event="tsc"')" 1 ||
  fail "perf: msr/tsc unavailable with CAP_PERFMON: $(grep rnic_perf $M)"
echo "<3>rnic test: a kernel line read as nobody" >/dev/kmsg
cp $M "$VMOUT/metrics-caps.prom"
say "CAP_SYSLOG,CAP_PERFMON: every collector succeeds; perf msr/tsc $(grep '^rnic_perf_events_total' $M | head -n 1)"
stop_exporter
