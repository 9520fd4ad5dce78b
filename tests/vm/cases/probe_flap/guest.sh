# Port flap and device removal under the probe: `ip link set dummy0 down`
# under rxe1 is counted as failed rounds (rnic_probe_success 0, port_err
# event), `up` brings the probe back by itself (port_active, success 1);
# `rdma link delete rxe1` releases the device (the delete must not hang on
# the probe's open context) and drops its series, and `rdma link add rxe1`
# is probed again. The
# probe's QP/CQ/MR/PD counts in `rdma resource` are the same before and
# after each disturbance.
# until_true SECONDS WHAT 'SHELL CONDITION': re-scrape until the condition
# (evaluated after each scrape) holds.
until_true() {
  _t=$(($1 * 5)); _what=$2; shift 2
  until snap && eval "$*"; do
    _t=$((_t - 1)); [ $_t -gt 0 ] || { grep -E 'rnic_probe_(success|rounds)|async' $M; fail "timed out: $_what"; }
    usleep 200000
  done
}
ok_rounds() { val rnic_probe_rounds_total 'device="rxe1",port="1",result="ok"'; }
failed_rounds() { val rnic_probe_rounds_total 'device="rxe1",port="1",result="failed"'; }
success_is() { [ "$(val rnic_probe_success 'device="rxe1",port="1"')" = "$1" ]; }
# The probe's own objects on rxe1 (the kernel's GSI QP/CQ/PD are excluded).
res() {
  for t in qp cq mr pd; do
    printf '%s=%s ' $t "$(rdma res show $t 2>/dev/null | grep -c -E '(dev|link) rxe1[ /].*comm (rnic_exporter|rnic-probe)')"
  done
}

start_exporter --collector.disable-defaults --collector.probe \
  --config.file=/case/probe.yml
until_true 60 "first ok rounds" 'ge "$(ok_rounds)" 3'
until_true 10 "success 1" 'success_is 1'
res0=$(res)
say "steady: ok rounds $(ok_rounds), probe resources: $res0"
[ "$res0" = "qp=2 cq=2 mr=2 pd=2 " ] || fail "unexpected probe resources: $res0"

# --- port flap -----------------------------------------------------------------
f0=$(failed_rounds)
ip link set dummy0 down || fail "ip link set dummy0 down"
until_true 30 "failure seen after link down" 'success_is 0'
until_true 30 "failed rounds counted" 'ge "$(failed_rounds)" $((${f0%.*} + 2))'
ge "$(val rnic_async_events_total 'device="rxe1",port="1",event="port_err"')" 1 || fail "no port_err event"
say "link down: success 0, failed rounds $(failed_rounds), port_err $(val rnic_async_events_total 'event="port_err"')"
ok1=$(ok_rounds)
ip link set dummy0 up || fail "ip link set dummy0 up"
until_true 30 "recovery after link up" 'success_is 1'
until_true 30 "ok rounds after recovery" 'ge "$(ok_rounds)" $((${ok1%.*} + 3))'
ge "$(val rnic_async_events_total 'device="rxe1",port="1",event="port_active"')" 1 || fail "no port_active event"
ge "$(val rnic_probe_rebuilds_total 'device="rxe1"')" 1 || fail "no rebuild counted"
res1=$(res)
say "recovered: ok rounds $(ok_rounds), rebuilds $(val rnic_probe_rebuilds_total 'device="rxe1"'), resources $res1"
[ "$res1" = "$res0" ] || fail "probe resources changed across the flap: $res0 -> $res1"
cp $M "$VMOUT/metrics-after-flap.prom"

# --- device removal and re-add ---------------------------------------------------
timeout 30 rdma link delete rxe1 || fail "rdma link delete rxe1 failed or hung"
[ ! -e /sys/class/infiniband/rxe1 ] || fail "rxe1 still registered"
say "rxe1 deleted"
sleep 2
exporter_alive || fail "exporter died after rxe1 was removed"
[ "$(rdma res show qp 2>/dev/null | grep -c -E 'comm (rnic_exporter|rnic-probe)')" = 0 ] || fail "probe QPs left after removal"
# The probe serves no series of the removed device: frozen values would look
# like a healthy port.
until_true 30 "rxe1's probe series dropped" '[ "$(grep -v "^#" $M | grep -c "device=\"rxe1\"")" = 0 ]'
rdma link add rxe1 type rxe netdev dummy0 || fail "rdma link add rxe1"
# Its series start afresh.
until_true 60 "probing the re-added rxe1" 'ge "$(ok_rounds)" 3'
until_true 10 "success 1 after re-add" 'success_is 1'
res2=$(res)
say "re-added: ok rounds $(ok_rounds), resources $res2"
[ "$res2" = "$res0" ] || fail "probe resources after re-add: $res2 (was $res0)"
cp $M "$VMOUT/metrics-final.prom"
stop_exporter
