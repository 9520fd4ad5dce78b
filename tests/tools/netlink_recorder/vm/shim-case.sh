#!/bin/sh
# Runs tests/vm/cases/netlink/guest.sh in the reference kit, with the
# collectors driven by rnic_netlink_recorder instead of the (not yet
# available) exporter daemon.
ip() { /usr/sbin/ip "$@"; }
B=${RNIC_TOOLS:-/work/wt/netlink/build/tests/tools}  # where EXTRA_BINS put them
rdma link add rxe0 type rxe netdev eth0 || exit 1
rdma link add rxe1 type rxe netdev dummy0 || exit 1
mkdir -p /case && cp /mnt/case/* /case/
ln -sf $B/res_holder/rnic_res_holder /usr/bin/rnic_res_holder
VM_NAME=vm0 VMOUT=$OUT EXPORTER_PORT=9709 EXPORTER_LOG=/tmp/exporter.log
: > $EXPORTER_LOG
say() { echo "guest[$VM_NAME]: $*"; }
fail() { echo "guest[$VM_NAME]: FAIL: $*" >&2; exit 1; }
start_exporter() {
  # a tiny server: every GET runs one scrape of the two collectors
  mkdir -p /tmp/cgi/cgi-bin
  cat > /tmp/cgi/cgi-bin/metrics <<EOS
#!/bin/sh
echo "Content-Type: text/plain"; echo
rm -rf /tmp/rec.\$\$; $B/netlink_recorder/rnic_netlink_recorder /tmp/rec.\$\$ 2>/dev/null
s=\$?
cat /tmp/rec.\$\$/metrics.txt
echo "rnic_scrape_collector_success{collector=\"netlink_stat\"} \$((s == 0))"
echo "rnic_scrape_collector_success{collector=\"netlink_resource\"} \$((s == 0))"
rm -rf /tmp/rec.\$\$
EOS
  chmod +x /tmp/cgi/cgi-bin/metrics
  httpd -p 9709 -h /tmp/cgi
}
scrape() {
  printf 'GET /cgi-bin/metrics HTTP/1.0\r\n\r\n' | timeout 15 nc 127.0.0.1 9709 | tr -d '\r' |
    awk 'NR == 1 { bad = ($2 != 200); next } body { print; next } $0 == "" { body = 1 } END { exit (NR == 0 || bad) }'
}
exporter_alive() { true; }
stop_exporter() { say "stop (shim)"; }
log_lines() { wc -l < $EXPORTER_LOG; }
rc_pingpong() {
  ibv_rc_pingpong -d "$1" -g 1 -n "$2" >/tmp/pp-server.log 2>&1 &
  _srv=$!
  sleep 1
  ibv_rc_pingpong -d "$1" -g 1 -n "$2" 127.0.0.1 >/tmp/pp-client.log 2>&1 || fail "pingpong"
  wait $_srv
}
# during.sh uses /metrics on the exporter port: point it at the cgi
. /case/checks.sh
sed 's|GET /metrics|GET /cgi-bin/metrics|' /case/guest.sh > /tmp/guest.sh
. /tmp/guest.sh
say "netlink case passed"
exit 0
