# The fabric probe's RTT against ping's (see host.py). Default collectors
# plus the fabric and loopback probes, as a user runs them; the client pings
# the server over the same eth0 while the host reads the histograms in
# Prometheus. perftest over rdma_cm first, on the same path, for the log.
sed "s/PEER/$PEER_IP/" /case/fabric.yml >/tmp/fabric.yml
reachable "$PEER_IP" || fail "peer $PEER_IP unreachable over eth0"
reachable "$PEER_IP2" || fail "peer $PEER_IP2 unreachable over eth2"

# ib_write_lat through rdma_cm (-R), as the probe connects: back-to-back
# round trips, the path with traffic on it. For the log only, so bounded:
# perftest has no timeouts of its own, and a server whose client gave up (or
# a run that lost its connection setup) waits forever.
LAT="ib_write_lat -d rxe0 -R -s 64 -n 300 -F"
if [ "$VM_NAME" = server ]; then
  signal perftest-ready
  timeout 120 $LAT >/tmp/lat.txt 2>&1 || say "ib_write_lat -R server: no result (exit $?)"
  wait_for perftest-done 60 || fail "client never finished ib_write_lat"
else
  wait_for perftest-ready 60 || fail "server not ready for ib_write_lat"
  end=$(($(cut -d. -f1 /proc/uptime) + 100))
  until timeout 60 $LAT "$PEER_IP" >/tmp/lat.txt 2>&1; do
    if [ "$(cut -d. -f1 /proc/uptime)" -ge "$end" ]; then
      say "ib_write_lat -R client: no result; last output:"
      cat /tmp/lat.txt
      break
    fi
    sleep 0.5
  done
  say "ib_write_lat -R over rxe0 (one way, us): $(awk '$1 == 64 { print "min", $3, "typical", $5, "avg", $6 }' /tmp/lat.txt)"
  signal perftest-done
fi

start_exporter --collector.fabric --collector.probe --config.file=/tmp/fabric.yml
signal "$VM_NAME-up"

# ping_median TAG: 60 pings a second apart over eth0 and, at the same time,
# over eth2; signals ping-TAG-done with the median RTT of each in ms (and
# eth0's min, max, count and mean).
ping_median() {
  pids=
  for peer in "$PEER_IP" "$PEER_IP2"; do
    ping -c 60 -i 1 -W 2 "$peer" | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' |
      sort -n | awk '{ v[NR] = $1; s += $1 }
        END { if (NR == 0) { print "NA"; exit }
              m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.3f %.3f %.3f %d %.3f\n", m, v[1], v[NR], NR, s / NR }' >"/tmp/ping.$peer" &
    pids="$pids $!"
  done
  # shellcheck disable=SC2086 # (not a bare wait: the exporter is a child too)
  wait $pids
  say "ping $1 eth0, eth2 (median min max n mean): $(cat "/tmp/ping.$PEER_IP"), $(cat "/tmp/ping.$PEER_IP2")"
  signal "ping-$1-done" "$(cat "/tmp/ping.$PEER_IP") $(cut -d' ' -f1 "/tmp/ping.$PEER_IP2")"
}

if [ "$VM_NAME" = client ]; then
  wait_for ping-idle 240 || fail "host never asked for the idle ping"
  ping_median idle
  wait_for delay-on 120 || fail "host never asked for the delay"
  tc qdisc add dev eth0 root netem delay 10ms || fail "tc netem delay"
  signal delay-is-on
  wait_for ping-delay 120 || fail "host never asked for the delayed ping"
  ping_median delay
  tc qdisc del dev eth0 root
fi
wait_host 300 || fail "host side failed"
stop_exporter
