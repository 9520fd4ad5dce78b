# Over 1000 probe rounds the probe's QP/CQ/MR/PD counts in `rdma resource`,
# the exporter's open file descriptors and its thread count stay flat, also
# across a forced rebuild (an rxe0 GID change from a new address on eth0).
# The probe creates its objects on its "rnic-probe" thread, so `rdma
# resource` names that thread, while the netlink_resource collector must
# count them under the process, rnic_exporter.
rounds() { val rnic_probe_rounds_total 'device="rxe0",port="1"'; }
wait_rounds() {
  _t=$(($2 * 5))
  until snap && awk -v a="$(rounds)" -v b="$1" 'BEGIN { exit !(a != "NA" && a >= b) }'; do
    _t=$((_t - 1)); [ $_t -gt 0 ] || fail "only $(rounds) rounds after $2 s (wanted $1)"
    usleep 200000
  done
}
state() {
  for t in qp cq mr pd ctx; do
    printf '%s=%s ' $t "$(rdma res show $t 2>/dev/null | grep -c -E 'comm (rnic_exporter|rnic-probe)')"
  done
  printf 'fds=%s threads=%s' "$(own_fds | wc -l)" "$(fixed_threads)"
}
# Threads other than the on-demand pools. The HTTP and collection pools start
# a thread when a request or a collector pass finds none idle (two scrapes at
# once, a collector past its parallel deadline) and keep it, up to a bound:
# that is growth by design, checked against the bound below, not a leak.
pool_re='^(rnic-scrape|rnic-http|rnic-collect)$'
thread_names() { cat /proc/$EXPORTER_PID/task/*/comm 2>/dev/null; }
fixed_threads() { thread_names | grep -cvE "$pool_re"; }

# The exporter's descriptors, less its TCP connections: those belong to the
# scrapers. The harness's Prometheus (1 s interval and timeout) drops its
# kept-alive connection whenever a scrape under TCG runs past 1 s and opens a
# new one on the next scrape. A dropped one can be reset and gone from
# /proc/net/tcp while the exporter still holds its descriptor, so sockets
# count only if a table lists them as the exporter's own kind: a listening
# TCP socket, netlink or unix. (Counting every socket but the listed
# connections was flaky: 9 <-> 10, then 10 <-> 11 fds on a loaded machine.)
own_fds() {
  {
    awk 'FNR > 1 && $4 == "0A" { print "socket:[" $10 "]" }' \
      /proc/net/tcp /proc/net/tcp6
    awk 'FNR > 1 { print "socket:[" $10 "]" }' /proc/net/netlink
    awk 'FNR > 1 { print "socket:[" $7 "]" }' /proc/net/unix
  } 2>/dev/null >/tmp/kept-sockets
  for _f in /proc/$EXPORTER_PID/fd/*; do
    _l=$(readlink "$_f") || continue
    case $_l in
      socket:*) grep -qxF "$_l" /tmp/kept-sockets || continue ;;
    esac
    echo "${_f##*/} -> $_l"
  done
}

# A scrape's connection or a rebuild in progress can hold one descriptor for
# a moment; a leak stays. So a state counts once two reads 0.5 s apart agree.
stable_state() {
  _prev=$(state)
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    usleep 500000
    _cur=$(state)
    [ "$_cur" = "$_prev" ] && break
    _prev=$_cur
  done
  echo "$_cur"
}

start_exporter --collector.disable-defaults --collector.probe \
  --collector.netlink_resource --config.file=/case/probe.yml
wait_rounds 100 120
s0=$(stable_state); r0=$(rounds)
own_fds >"$VMOUT/fds-start.txt"
thread_names | sort >"$VMOUT/threads-start.txt"
say "after $r0 rounds: $s0 (RSS $(awk '/^VmRSS:/ { print $2 }' /proc/$EXPORTER_PID/status) kB)"
# Flat is only worth checking if the probe's objects are found at all.
case "$s0" in qp=2\ cq=2\ mr=2\ pd=2\ ctx=1\ *) ;; *) fail "probe objects not found in rdma resource: $s0" ;; esac
[ "$(rdma res show qp 2>/dev/null | grep -c 'rxe0/.*comm rnic-probe')" = 2 ] ||
  fail "rdma resource does not name the probe thread: $(rdma res show qp)"
[ "$(val rnic_resource_comm_qps 'device="rxe0",comm="rnic_exporter"')" = 2 ] ||
  fail "netlink_resource: probe QPs not under comm=rnic_exporter: $(grep '^rnic_resource_comm_qps' $M)"
[ "$(val rnic_resource_comm_qps 'comm="rnic-probe"')" = NA ] ||
  fail "netlink_resource: a thread name leaked into comm: $(grep '^rnic_resource_comm_qps' $M)"
# A GID change makes the event thread flag the port: one teardown/rebuild.
ip addr add 10.0.2.16/24 dev eth0
wait_rounds $((${r0%.*} + 1000)) 240
ip addr del 10.0.2.16/24 dev eth0
wait_rounds $((${r0%.*} + 1050)) 60
s1=$(stable_state); r1=$(rounds)
say "after $r1 rounds: $s1 (RSS $(awk '/^VmRSS:/ { print $2 }' /proc/$EXPORTER_PID/status) kB), rebuilds $(val rnic_probe_rebuilds_total), MR samples $(val rnic_probe_mr_registration_seconds_count)"
cp $M "$VMOUT/metrics-final.prom"
echo "rounds $r0: $s0" >"$VMOUT/resources.txt"
echo "rounds $r1: $s1" >>"$VMOUT/resources.txt"
own_fds >"$VMOUT/fds-end.txt"
thread_names | sort >"$VMOUT/threads-end.txt"
[ "$s1" = "$s0" ] || {
  diff "$VMOUT/fds-start.txt" "$VMOUT/fds-end.txt" | grep '^[<>]'
  diff "$VMOUT/threads-start.txt" "$VMOUT/threads-end.txt" | grep '^[<>]'
}
# Each pool within its bound: scrapes --web.max-requests (10) + 8 spare,
# light requests 2, collection one per collector (2 here) plus one.
pool_count() { thread_names | grep -cx "$1"; }
ps=$(pool_count rnic-scrape); ph=$(pool_count rnic-http); pc=$(pool_count rnic-collect)
say "pool threads: rnic-scrape $ps, rnic-http $ph, rnic-collect $pc"
[ "$ps" -le 18 ] && [ "$ph" -le 2 ] && [ "$pc" -le 3 ] ||
  fail "an on-demand pool is past its bound: scrape $ps/18, http $ph/2, collect $pc/3"
[ "$s1" = "$s0" ] || fail "resources changed over $((${r1%.*} - ${r0%.*})) rounds: '$s0' -> '$s1'"
awk -v a="$(val rnic_probe_rebuilds_total)" 'BEGIN { exit !(a >= 1) }' || fail "the GID change did not cause a rebuild"
# rxe has no per-QP counters: the STAT_SET bind (through the shared netlink
# stack) is refused with ENOMEM, logged once across 1000 rounds and a
# rebuild, and the bound gauge says 0.
[ "$(val rnic_probe_qp_stat_bound 'device="rxe0",port="1"')" = 0 ] ||
  fail "rnic_probe_qp_stat_bound{rxe0} is not 0: $(grep '^rnic_probe_qp_stat_bound' $M)"
nbind=$(grep -c 'cannot bind the probe QPs' "$EXPORTER_LOG")
[ "$nbind" = 1 ] || fail "counter bind refusal logged $nbind times: $(grep 'cannot bind' "$EXPORTER_LOG")"
grep 'cannot bind the probe QPs' "$EXPORTER_LOG" | grep -q 'Cannot allocate memory' ||
  fail "bind refusal is not ENOMEM: $(grep 'cannot bind' "$EXPORTER_LOG")"
say "bind refusal: $(grep 'cannot bind the probe QPs' "$EXPORTER_LOG")"
[ "$(val rnic_probe_rounds_total 'result="failed"')" = 0 ] || say "note: $(val rnic_probe_rounds_total 'result="failed"') failed rounds"
stop_exporter
