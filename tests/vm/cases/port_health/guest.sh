# Flap versus drop on rxe1 (dummy0): a flap too short for any scrape (seen by
# carrier_down_count), a flap two scrapes saw, then a drop; the state and
# reason the exporter serves change as collectors/health/README.md says.
start_exporter --config.file=/case/health.yml
D='device="rxe1",port="1"'
P=/sys/class/infiniband/rxe1/ports/1/state
# state: the state rxe1's port is in (the one series at 1).
state() {
  snap
  for s in ok degraded failed unknown; do
    [ "$(val rnic_port_health_state "$D,state=\"$s\"")" = 1 ] && { echo $s; return; }
  done
  echo none
}
reason() { grep "^rnic_port_health_info{.*$D" "$M" | sed -n 's/.*reason="\([^"]*\)".*/\1/p'; }
# port_is STATE: wait (bounded) until the kernel shows rxe1's port in STATE.
port_is() {
  _n=50
  until grep -q "$1" $P; do
    _n=$((_n - 1)); [ $_n -gt 0 ] || fail "rxe1 port never became $1 ($(cat $P))"
    usleep 100000
  done
}

[ "$(state)" = ok ] || fail "rxe1 port 1 not ok at start: $(state) ($(reason))"
[ "$(val rnic_port_health_link_flaps "$D")" = 0 ] || fail "flaps at start"

# --- 1. a flap no scrape sees: only carrier_down_count tells -----------------
d0=$(cat /sys/class/net/dummy0/carrier_down_count)
ip link set dummy0 carrier off && ip link set dummy0 carrier on || fail "dummy0 carrier off/on"
# The port follows the carrier through linkwatch, up to 1 s late: let both
# events pass before looking.
sleep 2
port_is ACTIVE
s=$(state)
say "after an unseen flap: $s, flaps $(val rnic_port_health_link_flaps "$D"), carrier_down_count $d0 -> $(cat /sys/class/net/dummy0/carrier_down_count)"
[ "$s" = ok ] || fail "one flap (below flap_count 2) changed the state: $s ($(reason))"
[ "$(val rnic_port_health_link_flaps "$D")" = 1 ] || fail "the unseen flap was not counted"

# --- 2. a flap the scrapes see: down (inside the drop window), then up -------
ip link set dummy0 carrier off || fail "carrier off"
port_is DOWN
s=$(state)
[ "$s" = ok ] || fail "down inside the drop window changed the state: $s ($(reason))"
ip link set dummy0 carrier on || fail "carrier on"
port_is ACTIVE
s=$(state)
say "after a second flap: $s ($(reason))"
[ "$s" = degraded ] || fail "two flaps in the flap window: $s, want degraded"
[ "$(reason)" = "link flapping: 2 or more flaps within 5m" ] || fail "reason: $(reason)"

# --- 3. a drop: down longer than the drop window -----------------------------
ip link set dummy0 carrier off || fail "carrier off"
port_is DOWN
[ "$(state)" = degraded ] || fail "down inside the drop window: $(state)"
sleep 4
s=$(state)
say "down for 4 s: $s ($(reason))"
[ "$s" = failed ] || fail "down longer than the drop window: $s, want failed"
[ "$(reason)" = "link down longer than the drop window (3s)" ] || fail "reason: $(reason)"
# Back up: failed holds for the recovery hold, then the flaps (2, the drop
# not among them) leave it degraded.
ip link set dummy0 carrier on || fail "carrier on"
port_is ACTIVE
[ "$(state)" = failed ] || fail "failed did not hold over the recovery hold: $(state)"
[ "$(val rnic_port_health_link_flaps "$D")" = 2 ] || fail "the drop counted as a flap"
sleep 3
s=$(state)
say "back up for 3 s: $s ($(reason))"
[ "$s" = degraded ] || fail "after the recovery hold: $s, want degraded"

# rxe0 (virtio-net, never touched) stayed ok throughout; nothing stuck.
[ "$(val rnic_port_health_state 'device="rxe0",port="1",state="ok"')" = 1 ] || fail "rxe0 not ok"
[ "$(val rnic_port_health_stuck_reads)" = 0 ] || fail "stuck reads in the VM"
stop_exporter
