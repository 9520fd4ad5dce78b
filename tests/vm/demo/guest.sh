# Both VMs: the exporter with every collector, then traffic cycles until the
# host says stop. Each cycle (CYCLE seconds): RDMA WRITE traffic from the
# client to the server over eth0 (rxe0) the whole time; the second half of
# the cycle netem drops LOSS of the client's packets (retransmits,
# sequence errors: RnicRetransmitsHigh); the server takes dummy0 (rxe1)
# down for a quarter of the cycle (RnicPortDown, RnicProbeFailing).
CYCLE=${DEMO_CYCLE:-120}
LOSS=${DEMO_LOSS:-3%}
sed "s/PEER/$PEER_IP/" /case/demo.yml >/tmp/demo.yml
start_exporter --collector.probe --collector.perf --collector.kmsg \
  --collector.fabric --collector.fabric.devices=rxe0 --config.file=/tmp/demo.yml
signal "$VM_NAME-up"
reachable "$PEER_IP" || fail "peer $PEER_IP unreachable over eth0"
wait_for demo-go 300 || fail "host never started the demo"

BW="ib_write_bw -d rxe0 -x 1 -F -D 20 -s 65536"
stopped() { [ -e "$SYNC/demo-stop" ]; }
# nap SECONDS: sleeps, but returns 1 within 0.2 s of the host's stop, so the
# guest ends with the host script instead of finishing its cycle (up to
# CYCLE seconds, past the VM's time limit).
nap() {
  _t=$(($1 * 5))
  while [ $_t -gt 0 ]; do
    stopped && return 1
    usleep 200000
    _t=$((_t - 1))
  done
}
if [ "$VM_NAME" = server ]; then
  (while ! stopped; do $BW >/dev/null 2>&1; done) &
  traffic=$!
  while ! stopped; do
    nap $((CYCLE / 2)) || break
    ip link set dummy0 down && say "rxe1: link down"
    nap $((CYCLE / 4)) || break
    ip link set dummy0 up && say "rxe1: link up"
    nap $((CYCLE / 4)) || break
  done
else
  (while ! stopped; do sleep 1; $BW "$PEER_IP" >/dev/null 2>&1; done) &
  traffic=$!
  while ! stopped; do
    nap $((CYCLE / 2)) || break
    tc qdisc add dev eth0 root netem loss "$LOSS" && say "eth0: netem loss $LOSS"
    nap $((CYCLE / 2)) || break
    tc qdisc del dev eth0 root && say "eth0: loss cleared"
  done
fi
kill $traffic 2>/dev/null
pkill ib_write_bw 2>/dev/null
wait_host 120 || true
stop_exporter
