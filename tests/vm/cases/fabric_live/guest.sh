# fabric.live_peers with no peer set on either side: an application holds
# two RC connections (rnic_cm_holder, rdma_cm port 7174) from the client to
# the server; both exporters find the other host in their rdma_cm ID dump,
# probe it per pair, leave out their own probe connections, and drop it
# with its series when the application's connections end. The client also
# records the dump (rnic_netlink_recorder) for the unit tests' fixture
# tests/fixtures/netlink/rxe-cm-live.
FLAGS="--collector.fabric --collector.fabric.devices=rxe0 --config.file=/case/live.yml"
ME=${VM_IP%/*}
PEER=${PEER_IP%/*}
# until_val SECONDS WHAT FAMILY REGEX WANT: scrape until the sum equals WANT.
until_val() {
  _n=$(($1 * 2))
  while :; do
    snap
    [ "$(val "$3" "$4")" = "$5" ] && return 0
    _n=$((_n - 1))
    [ $_n -gt 0 ] || fail "$2: $3{$4} is $(val "$3" "$4"), want $5"
    sleep 0.5
  done
}
P="peer=\"$PEER\""
if [ "$VM_NAME" = server ]; then
  rnic_cm_holder -s -a "$ME" -p 7174 >/tmp/holder.txt 2>&1 &
  HOLDER=$!
fi
# shellcheck disable=SC2086
start_exporter $FLAGS
until_val 20 "no application connection yet" rnic_fabric_live_peers "" 0
[ "$(val rnic_fabric_peer_up)" = NA ] || fail "a pair without any peer: $(grep peer_up $M)"
signal "$VM_NAME-up"
if [ "$VM_NAME" = client ]; then
  wait_for server-up 120 || fail "server never came up"
  rnic_cm_holder -c -a "$PEER" -p 7174 -n 2 >/tmp/holder.txt 2>&1 &
  HOLDER=$!
fi
until_val 60 "live peer found" rnic_fabric_live_peers "" 1
until_val 60 "live peer probed" rnic_fabric_peer_up "$P" 1
until_val 10 "live peer counted as probed" rnic_fabric_live_peers_probed "" 1
ge "$(val rnic_fabric_probes_total "$P.*result=\"ok\"")" 1 ||
  fail "no ok probe to $PEER: $(grep "$PEER" $M)"
[ "$(val rnic_fabric_live_peers_dump_failures_total)" = 0 ] ||
  fail "dump failures: $(grep dump_failures $M)"
say "live peer $PEER found and probed (its probe connections left out)"
signal "$VM_NAME-probing"
wait_for server-probing 120 || fail "server never probed the client"
wait_for client-probing 120 || fail "client never probed the server"
if [ "$VM_NAME" = client ]; then
  # Both exporters' probe connections and the application's two are up.
  C="$VMOUT/capture"
  rnic_netlink_recorder "$C" >"$VMOUT/recorder.log" 2>&1
  rdma resource show cm_id >"$C/rdma-res-cm_id.txt"
  echo "$EXPORTER_PID" >"$C/exporter.pid"
  echo "$HOLDER" >"$C/holder.pid"
  grep -q connected "$C/rdma-res-cm_id.txt" 2>/dev/null || true
  say "recorded: $(wc -l <"$C/rdma-res-cm_id.txt") cm_ids"
  kill -TERM "$HOLDER"
  wait "$HOLDER"
  signal app-gone
else
  wait_for app-gone 120 || fail "client never ended the application"
fi
until_val 30 "application gone: live peer dropped" rnic_fabric_live_peers "" 0
until_val 30 "application gone: its pairs' series gone" rnic_fabric_peer_up "$P" NA
say "application gone: $PEER and its series dropped"
signal "$VM_NAME-done"
wait_for server-done 60 || fail "server never finished"
wait_for client-done 60 || fail "client never finished"
[ "$VM_NAME" = server ] && kill -TERM "$HOLDER" 2>/dev/null
stop_exporter
