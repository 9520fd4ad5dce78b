# Hot-remove and re-add rxe1 while the exporter, with its default collectors
# (sysfs, netlink_stat, netlink_resource, roce, kmsg, all reading one host
# model), is being scraped (by the host's Prometheus every second and by a
# scrape loop here): the exporter keeps serving, rxe1's series vanish from
# every family and come back (host.py checks Prometheus), it does not crash,
# and it does not log at every scrape. Then the RDMA device and its netdev
# are renamed, and the series follow the new names.
EXPORTER_FLAGS=""
QUIET_SCRAPES=20

start_exporter $EXPORTER_FLAGS
(
  n=0
  while [ ! -e /tmp/stop-loop ]; do
    scrape >/dev/null || echo "scrape $n failed at $(up)s" >>/tmp/loop.err
    n=$((n + 1))
    usleep 100000
  done
  echo $n >/tmp/loop.count
) &
loop=$!
# quiet_scrapes STAGE: more scrapes must not add log lines.
quiet_scrapes() {
  before=$(log_count)
  for i in $(seq $QUIET_SCRAPES); do
    scrape >/dev/null || fail "scrape failed ($1)"
  done
  after=$(log_count)
  [ "$after" -eq "$before" ] || {
    grep -v -E "$SLOW" "$EXPORTER_LOG" | tail -n $((after - before))
    fail "exporter logged $((after - before)) lines during $QUIET_SCRAPES scrapes ($1)"
  }
}

signal exporter-up
wait_for rxe1-seen 60 || fail "host never saw rxe1"
quiet_scrapes "both devices"
l0=$(log_count)
rdma link delete rxe1 || fail "rdma link delete rxe1"
[ ! -e /sys/class/infiniband/rxe1 ] || fail "rxe1 still in sysfs"
say "rxe1 deleted"
signal deleted
wait_for rxe1-gone-seen 60 || fail "host never saw rxe1's series vanish"
exporter_alive || fail "exporter died after rxe1 was removed"
# No collector keeps a series of the removed device.
left=$(scrape | grep -v '^#' | grep -c 'device="rxe1"')
[ "$left" -eq 0 ] || {
  scrape | grep 'device="rxe1"' | head -n 20
  fail "$left series of the removed rxe1 are still served"
}
quiet_scrapes "rxe1 removed"
rdma link add rxe1 type rxe netdev dummy0 || fail "rdma link add rxe1"
say "rxe1 re-added"
signal readded
wait_for rxe1-back-seen 60 || fail "host never saw rxe1 come back"
# Back in every collector that reads it: sysfs, netlink_stat, roce.
for fam in rnic_port_info rnic_port_state rnic_hw_sent_pkts_total rnic_netdev_mtu_bytes; do
  scrape | grep -q "^$fam{device=\"rxe1\"" || fail "rxe1 missing from $fam after re-add"
done
quiet_scrapes "rxe1 re-added"
l1=$(log_count)
# One-time messages about the change are fine, a line per scrape is not
# (there were dozens of scrapes in between).
[ $((l1 - l0)) -le 8 ] || {
  grep -v -E "$SLOW" "$EXPORTER_LOG" | tail -n $((l1 - l0))
  fail "exporter logged $((l1 - l0)) lines across the remove/re-add"
}
# Renames under the running exporter, still scraped by the loop: the RDMA
# device (its class/infiniband entry keeps its inode under the new name) and
# the netdev under it. Every series follows the new name; none keeps the old.
# served_within PATTERN: a scrape matches PATTERN within 10 s.
served_within() {
  _i=0
  until scrape | grep -q -- "$1"; do
    _i=$((_i + 1))
    [ $_i -lt 50 ] || return 1
    usleep 200000
  done
}
rdma dev set rxe1 name rxe9 || fail "rdma dev set rxe1 name rxe9"
say "rxe1 renamed rxe9"
served_within '^rnic_port_info{device="rxe9"' || fail "rxe9 never served after the rename"
for fam in rnic_port_state rnic_hw_sent_pkts_total rnic_netdev_mtu_bytes; do
  served_within "^$fam{device=\"rxe9\"" || fail "rxe9 missing from $fam after the rename"
done
left=$(scrape | grep -v '^#' | grep -c 'device="rxe1"')
[ "$left" -eq 0 ] || {
  scrape | grep 'device="rxe1"' | head -n 20
  fail "$left series still name rxe1 after its rename"
}
ip link set dummy0 down && ip link set dummy0 name dummyr && ip link set dummyr up ||
  fail "renaming dummy0"
say "dummy0 renamed dummyr"
served_within 'device="rxe9".*netdev="dummyr"' || fail "rxe9's netdev never served as dummyr"
left=$(scrape | grep -v '^#' | grep -c 'netdev="dummy0"')
[ "$left" -eq 0 ] || {
  scrape | grep 'netdev="dummy0"' | head -n 20
  fail "$left series still name netdev dummy0 after its rename"
}
say "renames followed: rxe1 -> rxe9, dummy0 -> dummyr"
touch /tmp/stop-loop
wait $loop
failed=0
[ -f /tmp/loop.err ] && failed=$(wc -l </tmp/loop.err)
say "scrape loop: $(cat /tmp/loop.count) scrapes, $failed failed; exporter log grew by $((l1 - l0)) lines"
[ ! -s /tmp/loop.err ] || { cat /tmp/loop.err; fail "scrapes failed during the remove/re-add"; }
exporter_alive || fail "exporter is gone"
slow=$(grep -c -E "$SLOW" "$EXPORTER_LOG")
[ "$slow" -eq 0 ] || say "note: $slow log lines about collector deadlines (slow emulation)"
wait_host 60 || fail "host side failed"
stop_exporter
