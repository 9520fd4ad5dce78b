# Two VMs (server, client) joined by a socket netdev: RC RDMA WRITEs from the
# client to the server across eth0 for 50 s while netem drops 2% of the
# client's packets. The host checks that Prometheus sees the sequence-error
# counters move on both sides (rcvd_seq_err on the requester,
# out_of_seq_request on the responder), and that the shipped
# RnicRetransmitsHigh alert goes pending, fires and resolves.
start_exporter --collector.disable-defaults --collector.sysfs
reachable "$PEER_IP" || fail "peer $PEER_IP unreachable over eth0"
signal "$VM_NAME-up"
wait_for baseline 120 || fail "host never took its baseline"

# A sustained transfer (-D seconds): the shipped RnicRetransmitsHigh alert,
# time compressed 30x (for: 30 s, 10 s rate windows), must see the loss
# last long enough to go pending and fire while it runs.
BW="ib_write_bw -d rxe0 -x 1 -F -D 50 -s 65536"
if [ "$VM_NAME" = server ]; then
  $BW >/tmp/bw.log 2>&1 &
  bw=$!
  signal server-listening
  wait $bw || { cat /tmp/bw.log; fail "ib_write_bw server failed"; }
else
  tc qdisc add dev eth0 root netem loss 2% || fail "tc netem"
  wait_for server-listening 60 || fail "server never listened"
  i=0
  until timeout 150 $BW "$PEER_IP" >/tmp/bw.log 2>&1; do
    i=$((i + 1))
    [ $i -lt 10 ] || { cat /tmp/bw.log; fail "ib_write_bw client failed"; }
    sleep 1
  done
  dropped=$(tc -s qdisc show dev eth0 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p')
  tc qdisc del dev eth0 root
  say "netem dropped $dropped packets"
  [ "${dropped:-0}" -gt 0 ] || fail "netem dropped nothing"
fi
grep -A1 '#bytes' /tmp/bw.log
say "$(rdma statistic show link rxe0/1)"
signal "$VM_NAME-done"
wait_host 120 || fail "host side failed"
stop_exporter
