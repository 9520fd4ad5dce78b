# Eight hosts of a fabric in one VM, each with its own netdev, Soft-RoCE
# device and exporter: a1-a4 on ToR tor-a, b1-b2 on tor-b, c1-c2 on tor-c.
#
#   a1..a4 -- [tora] --upa==spa-- [spine] --spb==upb-- [torb] -- b1 b2
#                                    |
#                                   spc==upc-- [torc] -- c1 c2
#
# Why one network namespace: Debian 12's kernel (6.1) runs Soft-RoCE in the
# initial namespace only (rdma_rxe opens its UDP sockets and looks up its
# routes there), and `rdma dev set rxeN netns NS` answers "Operation not
# supported" for rxe even in exclusive mode. So every host's veth stays in
# the initial namespace and policy routing keeps the hosts apart: a packet
# sent from host X's address leaves through X's veth (an `oif` rule per
# host, looked up before the local table), crosses the bridges, and comes
# in on the destination's veth (accept_local, since the source is one of
# the namespace's own addresses). Each exporter runs in a UTS namespace of
# its own, so its host name (a1, ...) is how it finds itself in the peer
# set, and selects only its own device (--collector.fabric.devices).
#
# Faults: 100 % netem loss, both directions, on tor-b's uplink, then on
# host a2's port. host.py watches the alerts.
# This script reconfigures the network it runs on: the test VM's only.
[ -f /etc/rnicvm-kver ] || { echo "guest.sh runs inside the test VM only" >&2; exit 2; }
# The schedule stands still during the test (one rotation period = 1 h):
# with rotation, a source group whose hosts probe tor-b only in some periods
# sees its failure ratio into tor-b rise more slowly than a group probing it
# every period, and RnicFabricSuspectPath (the faster group to tor-b) fires
# before RnicFabricSuspectTor's condition holds (seen with 10 s periods).
MESH_ROTATION=1h
HOSTS="a1 a2 a3 a4 b1 b2 c1 c2"
# a1 -> 9711, b2 -> 9722, c1 -> 9731; addresses 10.0.3.11, .22, .31.
num_of() { case $1 in a*) echo "1${1#?}" ;; b*) echo "2${1#?}" ;; c*) echo "3${1#?}" ;; esac; }
port_of() { echo "97$(num_of "$1")"; }
tor_of() { echo "tor${1%?}"; }

for k in all default; do
  sysctl -qw net.ipv4.conf.$k.accept_local=1 net.ipv4.conf.$k.rp_filter=0 \
    net.ipv4.conf.$k.arp_ignore=1 net.ipv4.conf.$k.arp_announce=2 \
    net.ipv6.conf.$k.disable_ipv6=1 || fail "sysctl"
done
for b in spine tora torb torc; do
  ip link add "$b" type bridge && ip link set "$b" up || fail "bridge $b"
done
for g in a b c; do
  ip link add "up$g" type veth peer name "sp$g" || fail "uplink $g"
  ip link set "up$g" master "tor$g" up && ip link set "sp$g" master spine up ||
    fail "uplink $g up"
done
# Local addresses are looked up after the per-host oif rules.
ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local ||
  fail "moving the local table's rule"
echo "127.0.0.1 localhost $HOSTS" >/etc/hosts
for h in $HOSTS; do
  n=$(num_of "$h")
  ip link add "h$h" type veth peer name "p$h" || fail "veth $h"
  ip link set "p$h" master "$(tor_of "$h")" up || fail "port $h"
  ip addr add "10.0.3.$n/24" dev "h$h" && ip link set "h$h" up || fail "address $h"
  ip rule add pref "$((100 + n))" oif "h$h" lookup "$((100 + n))" &&
    ip route add 10.0.3.0/24 dev "h$h" src "10.0.3.$n" table "$((100 + n))" ||
    fail "routing $h"
  rdma link add "rx$h" type rxe netdev "h$h" || fail "rdma link add rx$h"
done
# Every host reaches c2 (c2 reaches a1) through the bridges and the spine.
for h in $HOSTS; do
  to=10.0.3.32
  [ "$h" != c2 ] || to=10.0.3.11
  ping -c 1 -W 5 -I "h$h" $to >/dev/null 2>&1 ||
    ping -c 1 -W 5 -I "h$h" $to >/dev/null 2>&1 || fail "$h cannot reach $to"
done
say "hosts up: $(rdma link | awk '{print $2}' | tr '\n' ' ')"

sed "s/ROTATION/$MESH_ROTATION/" /case/fabric.yml >/tmp/fabric.yml
PIDS=
for h in $HOSTS; do
  p=$(port_of "$h")
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare -u sh -c 'hostname "$1"; shift; exec "$@"' sh "$h" "$EXPORTER" \
    --web.listen-address="0.0.0.0:$p" --collector.disable-defaults \
    --collector.fabric "--collector.fabric.devices=^rx$h\$" \
    --config.file=/tmp/fabric.yml >>"$VMOUT/exporter-$h.log" 2>&1 &
  PIDS="$PIDS $!"
done
for h in $HOSTS; do
  n=150
  until scrape_port "$(port_of "$h")" >/dev/null; do
    n=$((n - 1))
    [ $n -gt 0 ] || { cat "$VMOUT/exporter-$h.log"; fail "exporter $h never answered"; }
    usleep 200000
  done
done
say "exporters up:$PIDS"
signal mesh-up

# loss IFACE... / repair IFACE...: netem on both ends of a link.
loss() { for i in "$@"; do tc qdisc add dev "$i" root netem loss 100% || fail "netem on $i"; done; }
repair() { for i in "$@"; do tc qdisc del dev "$i" root || fail "netem off $i"; done; }
wait_for uplink-loss 600 || fail "host never asked for the uplink loss"
loss upb spb
signal uplink-loss-on "upb spb"
wait_for uplink-clear 600 || fail "host never asked to clear the uplink"
repair upb spb
signal uplink-clear-done
wait_for host-loss 600 || fail "host never asked for the host loss"
loss ha2 pa2
signal host-loss-on "ha2 pa2"
wait_for host-clear 600 || fail "host never asked to clear the host"
repair ha2 pa2
signal host-clear-done

wait_host 600 || fail "host side failed"
for pid in $PIDS; do
  kill -0 "$pid" 2>/dev/null || fail "exporter pid $pid is no longer running"
done
for pid in $PIDS; do kill -TERM "$pid"; done
for pid in $PIDS; do
  wait "$pid"
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 143 ] || fail "exporter pid $pid exited $rc after SIGTERM"
done
say "exporters stopped cleanly"
