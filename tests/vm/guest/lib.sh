# Helpers for case guest scripts (busybox sh). Sourced by /init before
# /case/guest.sh. Environment from /init: VM_NAME, VM_IP, PEER_IP,
# EXPORTER_PORT, VMOUT (/out/$VM_NAME), OUT (/out), SYNC (/out/sync), CASE.

# Environment the host passes on (sanitizer options).
[ -f "$OUT/guest.env" ] && . "$OUT/guest.env"

# busybox sh prefers its own applets over $PATH; force the real tools.
ip() { /usr/sbin/ip "$@"; }
tc() { /usr/sbin/tc "$@"; }

up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "guest[$VM_NAME $(up)s]: $*"; }
fail() {
  echo "guest[$VM_NAME $(up)s]: FAIL: $*" >&2
  exit 1
}

# --- synchronisation through the shared /out/sync directory ---------------
# signal NAME: create marker NAME (seen by the host and by the other VM).
signal() { echo "${2:-}" >"$SYNC/$1.tmp" && mv "$SYNC/$1.tmp" "$SYNC/$1"; }
# wait_for NAME [SECONDS]: wait for marker NAME (default 60 s); 1 on timeout.
wait_for() {
  _n=$(( ${2:-60} * 5 ))
  while [ ! -e "$SYNC/$1" ]; do
    _n=$((_n - 1))
    [ $_n -gt 0 ] || { say "timed out waiting for $1"; return 1; }
    usleep 200000
  done
}
# wait_host [SECONDS]: wait until the host-side script has finished; returns
# its exit status (the harness writes it to the host-done marker).
# reachable IP [SECONDS]: pings IP until it answers (default 120 s). The
# other VM boots at its own pace: on a loaded host it may set its address
# or answer ARP seconds after this one, and one ping whose ARP failed never
# asks again.
reachable() {
  local end=$(($(cut -d. -f1 /proc/uptime) + ${2:-120}))
  until ping -c 1 -W 2 "$1" >/dev/null 2>&1; do
    [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || return 1
    sleep 1
  done
}
wait_host() {
  wait_for host-done "${1:-120}" || return 1
  return "$(cat "$SYNC/host-done")"
}

# --- the exporter as a daemon ----------------------------------------------
EXPORTER=/usr/bin/rnic_exporter
EXPORTER_URL=http://127.0.0.1:$EXPORTER_PORT
EXPORTER_LOG=$VMOUT/exporter.log

# start_exporter [FLAGS...]: start rnic_exporter on 0.0.0.0:$EXPORTER_PORT
# (the port forwarded to the host) and wait until /metrics answers.
start_exporter() {
  [ -x "$EXPORTER" ] || fail "rnic_exporter is not in the initramfs: build the exporter (build/exporter/rnic_exporter) and rerun"
  say "starting rnic_exporter $*"
  "$EXPORTER" --web.listen-address="0.0.0.0:$EXPORTER_PORT" "$@" >>"$EXPORTER_LOG" 2>&1 &
  EXPORTER_PID=$!
  _n=150
  until scrape >/dev/null 2>&1; do
    kill -0 "$EXPORTER_PID" 2>/dev/null || {
      cat "$EXPORTER_LOG"
      fail "rnic_exporter exited during startup"
    }
    _n=$((_n - 1))
    [ $_n -gt 0 ] || fail "rnic_exporter did not answer on $EXPORTER_URL within 30 s"
    usleep 200000
  done
  say "rnic_exporter up (pid $EXPORTER_PID)"
}
# http_raw PORT PATH: an HTTP/1.0 GET to 127.0.0.1:PORT through nc; the
# answer (status line, headers, body) on stdout. The request goes through a
# FIFO held open until the answer has come: busybox nc shuts its sending
# side down at the end of its input, and libmicrohttpd drops a request whose
# client shut down before the request was processed (a client abort).
http_raw() {
  _f=$(mktemp -u /tmp/http.XXXXXX)
  mkfifo "$_f"
  { printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$2"; sleep 20; } >"$_f" &
  _w=$!
  timeout 15 nc 127.0.0.1 "$1" <"$_f" 2>/dev/null
  _rc=$?
  kill "$_w" 2>/dev/null
  rm -f "$_f"
  return $_rc
}
# scrape [PATH]: GET from the exporter (default /metrics); the body goes to
# stdout, and the status is 0 only for an HTTP 200 answer. (busybox's static
# wget crashes on this glibc, so this speaks HTTP/1.0 through nc.)
scrape() { scrape_port "$EXPORTER_PORT" "$@"; }
# scrape_port PORT [PATH]: the same from the exporter on PORT.
scrape_port() {
  http_raw "$1" "${2:-/metrics}" | tr -d '\r' |
    awk 'NR == 1 { bad = ($2 != 200); next }
         body { print; next }
         $0 == "" { body = 1 }
         END { exit (NR == 0 || bad) }'
}
# snap: scrape /metrics into $M; val NAME [REGEX]: sum of the samples of
# NAME (exactly that name) in $M whose line matches REGEX, "NA" if none.
M=/tmp/m.prom
snap() { scrape >"$M" || fail "scrape failed"; }
val() {
  awk -v n="$1" -v re="${2:-}" '
    index($0, n) == 1 && (substr($0, length(n) + 1, 1) == "{" || substr($0, length(n) + 1, 1) == " ") && $0 ~ re { s += $NF; f = 1 }
    END { if (f) printf "%.9g\n", s; else print "NA" }' "$M"
}
# ge A B: A is a number (not "NA") and A >= B.
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "NA" && a + 0 >= b + 0) }'; }
# Log lines that only say the emulated machine was too slow for Prometheus'
# 1 s scrape timeout (likely under TCG with a sanitizer build on a busy
# host): reported, but no case counts them as the exporter logging.
SLOW='deadline exceeded|previous scrape still running|collector recovered'
# log_count: exporter log lines that are not about slowness.
log_count() { grep -c -v -E "$SLOW" "$EXPORTER_LOG"; }
exporter_alive() { kill -0 "$EXPORTER_PID" 2>/dev/null; }
# stop_exporter: SIGTERM and wait; fails if it had crashed or exits non-zero.
stop_exporter() {
  exporter_alive || fail "rnic_exporter is no longer running (crashed?)"
  kill -TERM "$EXPORTER_PID"
  wait "$EXPORTER_PID"
  _rc=$?
  # 0: handled SIGTERM; 143: died of it by default action. Anything else
  # (134 abort, 139 segfault, 1 sanitizer report...) is a failure.
  [ $_rc -eq 0 ] || [ $_rc -eq 143 ] ||
    fail "rnic_exporter exited with status $_rc after SIGTERM (see $EXPORTER_LOG)"
  say "rnic_exporter stopped cleanly"
}
log_lines() { wc -l <"$EXPORTER_LOG"; }

# --- RDMA traffic ------------------------------------------------------------
# rc_pingpong DEV ITERS: loopback RC ping-pong on DEV (GID 1 = IPv4-mapped).
rc_pingpong() {
  ibv_rc_pingpong -d "$1" -g 1 -n "$2" >/tmp/pp-server.log 2>&1 &
  _srv=$!
  _i=0
  until ibv_rc_pingpong -d "$1" -g 1 -n "$2" 127.0.0.1 >/tmp/pp-client.log 2>&1; do
    _i=$((_i + 1))
    [ $_i -lt 20 ] || { cat /tmp/pp-client.log; fail "ibv_rc_pingpong client failed"; }
    usleep 200000
  done
  wait $_srv || { cat /tmp/pp-server.log; fail "ibv_rc_pingpong server failed"; }
}
# counter DEV NAME: a hw counter straight from sysfs.
counter() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
