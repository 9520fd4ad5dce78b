# The server names the client statically (its responder admits only peers).
# The client starts with the server in a file_sd file, loses it when the file
# is emptied, finds it again through a DNS name (/etc/hosts, `multi on`:
# every address of the name; its own is recognised by the address exchange
# and skipped) and loses it when the name goes.
FLAGS="--collector.fabric --collector.fabric.devices=rxe0"
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
if [ "$VM_NAME" = server ]; then
  sed "s/PEER/$PEER_IP/" /case/server.yml >/tmp/fabric.yml
  # shellcheck disable=SC2086
  start_exporter $FLAGS --config.file=/tmp/fabric.yml
  signal server-up
  wait_for client-done 240 || fail "client never finished"
  stop_exporter
  exit 0
fi
wait_for server-up 120 || fail "server never came up"
printf 'hosts: files\n' >/etc/nsswitch.conf
printf 'multi on\n' >/etc/host.conf
: >/etc/hosts
put_sd() { printf '%s\n' "$1" >/tmp/peers.json.new && mv /tmp/peers.json.new /tmp/peers.json; }
put_sd "[{\"targets\": [\"$PEER_IP:9709\"], \"labels\": {\"tor\": \"t1\"}}]"
# shellcheck disable=SC2086
start_exporter $FLAGS --config.file=/case/client.yml
P="peer=\"$PEER_IP\""
until_val 60 "file_sd peer" rnic_fabric_peer_up "$P" 1
until_val 10 "file_sd peer count" rnic_fabric_peers "" 1
say "file_sd: $PEER_IP probed"
put_sd "[]"
until_val 30 "file_sd emptied" rnic_fabric_peers "" 0
until_val 30 "file_sd emptied: the pair's series" rnic_fabric_peer_up "$P" NA
say "file_sd emptied: peer and its series gone"
printf '%s rnic-peers\n%s rnic-peers\n' "$PEER_IP" "$VM_IP" | sed 's|/[0-9]*||' >/etc/hosts
until_val 60 "DNS peer" rnic_fabric_peer_up "$P" 1
until_val 10 "DNS: own address not a pair" rnic_fabric_pairs "" 1
say "DNS: rnic-peers -> $PEER_IP probed, own address skipped"
: >/etc/hosts
until_val 30 "DNS name gone" rnic_fabric_peer_up "$P" NA
say "DNS name gone: pair dropped"
signal client-done
stop_exporter
