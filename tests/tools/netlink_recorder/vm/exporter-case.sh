#!/bin/sh
# Runs tests/vm/cases/netlink/guest.sh in the reference kit against the real
# rnic_exporter daemon (EXTRA_BINS must include build/exporter/rnic_exporter).
ip() { /usr/sbin/ip "$@"; }
B=${RNIC_BUILD:-/work/wt/netlink/build}
rdma link add rxe0 type rxe netdev eth0 || exit 1
rdma link add rxe1 type rxe netdev dummy0 || exit 1
mkdir -p /case && cp /mnt/case/* /case/
ln -sf $B/tests/tools/res_holder/rnic_res_holder /usr/bin/rnic_res_holder
VM_NAME=vm0 VMOUT=$OUT EXPORTER_PORT=9709 EXPORTER_LOG=$OUT/exporter.log
: >$EXPORTER_LOG
say() { echo "guest[$VM_NAME]: $*"; }
fail() { echo "guest[$VM_NAME]: FAIL: $*" >&2; exit 1; }
scrape() {
  printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "${1:-/metrics}" |
    timeout 15 nc 127.0.0.1 "$EXPORTER_PORT" 2>/dev/null | tr -d '\r' |
    awk 'NR == 1 { bad = ($2 != 200); next } body { print; next } $0 == "" { body = 1 } END { exit (NR == 0 || bad) }'
}
start_exporter() {
  $B/exporter/rnic_exporter --web.listen-address=0.0.0.0:$EXPORTER_PORT "$@" >>$EXPORTER_LOG 2>&1 &
  EXPORTER_PID=$!
  n=150
  until scrape >/dev/null 2>&1; do
    kill -0 $EXPORTER_PID 2>/dev/null || { cat $EXPORTER_LOG; fail "exporter exited"; }
    n=$((n - 1)); [ $n -gt 0 ] || fail "exporter did not answer"
    usleep 200000
  done
  say "rnic_exporter up (pid $EXPORTER_PID)"
}
exporter_alive() { kill -0 "$EXPORTER_PID" 2>/dev/null; }
stop_exporter() {
  exporter_alive || fail "exporter not running"
  kill -TERM $EXPORTER_PID; wait $EXPORTER_PID; rc=$?
  [ $rc -eq 0 ] || fail "exporter exit $rc"
  say "rnic_exporter stopped cleanly"
}
log_lines() { wc -l <$EXPORTER_LOG; }
rc_pingpong() {
  ibv_rc_pingpong -d "$1" -g 1 -n "$2" >/tmp/pp-server.log 2>&1 &
  _srv=$!
  sleep 1
  ibv_rc_pingpong -d "$1" -g 1 -n "$2" 127.0.0.1 >/tmp/pp-client.log 2>&1 || fail "pingpong"
  wait $_srv
}
. /case/guest.sh
say "netlink case passed"
exit 0
