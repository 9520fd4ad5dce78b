# The fabric probe between two hosts (see host.py for what Prometheus must
# see). Before the exporter starts, perftest measures the same paths
# (ib_send_lat, ib_write_lat over rxe0) for the README's side-by-side.
sed "s/PEER/$PEER_IP/" /case/fabric.yml >/tmp/fabric.yml
reachable "$PEER_IP" || fail "peer $PEER_IP unreachable over eth0"
reachable "$PEER_IP2" || fail "peer $PEER_IP2 unreachable over eth2"

# --- perftest on the same path, same VMs ------------------------------------
for t in send write; do
  if [ "$VM_NAME" = server ]; then
    signal "perftest-$t-ready"
    ib_${t}_lat -d rxe0 -x 1 -s 64 -n 500 -F >"$VMOUT/ib_${t}_lat.txt" 2>&1 ||
      { cat "$VMOUT/ib_${t}_lat.txt"; fail "ib_${t}_lat server"; }
  else
    wait_for "perftest-$t-ready" 60 || fail "server not ready for ib_${t}_lat"
    i=0
    until ib_${t}_lat -d rxe0 -x 1 -s 64 -n 500 -F "$PEER_IP" >"$VMOUT/ib_${t}_lat.txt" 2>&1; do
      i=$((i + 1))
      [ $i -lt 20 ] || { cat "$VMOUT/ib_${t}_lat.txt"; fail "ib_${t}_lat client"; }
      sleep 0.5
    done
    signal "perftest-$t-done" "$(awk '$1 == 64 && NF >= 5 { print $5 }' "$VMOUT/ib_${t}_lat.txt")"
  fi
  [ "$VM_NAME" = client ] || wait_for "perftest-$t-done" 60 || fail "ib_${t}_lat never finished"
done

FLAGS="--collector.fabric --collector.fabric.devices=rxe0|rxe2 --config.file=/tmp/fabric.yml"
# shellcheck disable=SC2086
start_exporter $FLAGS
signal "$VM_NAME-up"

if [ "$VM_NAME" = client ]; then
  wait_for delay-on 420 || fail "host never asked for the delay"
  # What the delay really adds here, by another tool over the same qdisc:
  # netem releases packets on a timer, and on a loaded host a TCG guest's
  # timers fire late, so 2 ms of netem can add more. Measured as the probe
  # check measures it: the lowest of 100 pings over eth0 less the lowest of
  # 100 pings at the same time over eth2 (no delay).
  ping_min() {
    ping -c 100 -i 0.1 -W 2 "$1" | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' |
      sort -n | head -n 1
  }
  ping_gap() {
    ping_min "$PEER_IP2" >/tmp/ping_min2 &
    m0=$(ping_min "$PEER_IP")
    wait
    awk -v a="$m0" -v b="$(cat /tmp/ping_min2)" 'BEGIN { printf "%.3f", a - b }'
  }
  before=$(ping_gap)
  tc qdisc add dev eth0 root netem delay 2ms || fail "tc netem delay"
  after=$(ping_gap)
  say "ping, lowest over eth0 less lowest over eth2: $before ms, with netem delay 2ms: $after ms"
  signal delay-is-on "$before $after"
  wait_for delay10-on 420 || fail "host never asked for 10 ms of delay"
  tc qdisc change dev eth0 root netem delay 10ms || fail "tc netem delay 10ms"
  after=$(ping_gap)
  say "ping, lowest over eth0 less lowest over eth2, with netem delay 10ms: $after ms"
  signal delay10-is-on "$before $after"
  wait_for loss-on 200 || fail "host never asked for the loss"
  tc qdisc change dev eth0 root netem loss 5% || fail "tc netem loss"
  signal loss-is-on
  wait_for loss-off 200 || fail "host never asked to end the loss"
  tc qdisc del dev eth0 root
  signal loss-is-off
  # A host outside the peer set: an address the server does not know.
  wait_for stranger 200 || fail "host never asked for the stranger"
  ip addr add 10.0.3.99/24 dev eth0
  rping -c -a "$PEER_IP" -I 10.0.3.99 -p 18530 -C 1 -v >/tmp/rping.txt 2>&1
  say "rping from 10.0.3.99 (expected to be refused): $(tail -1 /tmp/rping.txt)"
  ip addr del 10.0.3.99/24 dev eth0
  signal stranger-done
else
  # The peer goes down: the server's exporter stops, and comes back.
  wait_for peer-down 300 || fail "host never asked for the peer to go down"
  stop_exporter
  signal peer-is-down
  wait_for peer-back 120 || fail "host never asked for the peer to come back"
  # shellcheck disable=SC2086
  start_exporter $FLAGS
  signal peer-is-back
fi
wait_host 300 || fail "host side failed"
stop_exporter
