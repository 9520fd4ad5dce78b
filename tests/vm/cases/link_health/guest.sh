# PCIe link facts, carrier changes, per-pod attribution from a cgroup made
# for the test, and expect checks: every value the exporter serves equals
# the kernel's. (FEC and module EEPROM on virtio-net: the ethtool case.)
start_exporter --collector.netlink_resource.pod-labels --config.file=/case/expect.yml
# eth0's device is the virtio device; its parent is the PCI function.
pci=$(basename "$(readlink -f /sys/class/net/eth0/device/..)")
P=/sys/bus/pci/devices/$pci
say "rxe0 -> eth0 -> $pci: $(cat $P/current_link_speed) x$(cat $P/current_link_width)" \
  "(max $(cat $P/max_link_speed) x$(cat $P/max_link_width))"
gts() { awk '{ print $1 * 1e9 }'; }  # "2.5 GT/s PCIe" -> transfers per second
# same A B: both numbers and equal (the exporter prints 2.5e+09).
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "NA" && b != "" && a + 0 == b + 0) }'; }

# --- PCIe link of rxe0's PCI function (its parent netdev's) -----------------
snap
D='device="rxe0"'
same "$(val rnic_pcie_link_speed_transfers_per_second "$D")" "$(gts <$P/current_link_speed)" ||
  fail "link speed: $(val rnic_pcie_link_speed_transfers_per_second "$D") vs $(cat $P/current_link_speed)"
same "$(val rnic_pcie_link_max_speed_transfers_per_second "$D")" "$(gts <$P/max_link_speed)" ||
  fail "max link speed: $(val rnic_pcie_link_max_speed_transfers_per_second "$D")"
[ "$(val rnic_pcie_link_width_lanes "$D")" = "$(cat $P/current_link_width)" ] || fail "link width"
[ "$(val rnic_pcie_link_max_width_lanes "$D")" = "$(cat $P/max_link_width)" ] || fail "max link width"
[ "$(val rnic_pcie_link_downtrained "$D")" = 0 ] || fail "downtrained at full speed and width"
[ "$(val rnic_pcie_link_width_lanes 'device="rxe1"')" = NA ] || fail "rxe1 (dummy0) has no PCI function"

# --- carrier changes of dummy0 (rxe1) -----------------------------------------
# virtio-net's carrier follows the device's link status, which only qemu can
# change; dummy's follows `ip link set ... carrier` (ndo_change_carrier).
D1='device="rxe1"'
C=/sys/class/net/dummy0
c0=$(cat $C/carrier_changes)
same "$(val rnic_netdev_carrier_changes_total "$D1")" "$c0" || fail "carrier_changes before the flap"
ip link set dummy0 carrier off && sleep 1 && ip link set dummy0 carrier on || fail "dummy0 carrier off/on"
sleep 1
snap
c1=$(cat $C/carrier_changes)
[ "$c1" -ge $((c0 + 2)) ] || fail "the kernel counted no flap ($c0 -> $c1)"
same "$(val rnic_netdev_carrier_changes_total "$D1")" "$c1" ||
  fail "carrier changes: exporter $(val rnic_netdev_carrier_changes_total "$D1"), kernel $c1"
same "$(val rnic_netdev_carrier_up_total "$D1")" "$(cat $C/carrier_up_count)" || fail "carrier up"
same "$(val rnic_netdev_carrier_down_total "$D1")" "$(cat $C/carrier_down_count)" || fail "carrier down"
say "dummy0 carrier changes $c0 -> $c1"

# --- per-pod attribution from the process's cgroup ---------------------------
UID_="4f1c0a3e-8b2d-4e6f-9a71-0c5d2e3f4a5b"
CID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2"
CG=/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(echo $UID_ | tr - _).slice/cri-containerd-$CID.scope
mkdir -p "$CG" || fail "mkdir $CG"
cat >/tmp/during.sh <<EOS
. /usr/lib/rnicvm/lib.sh  # http_raw
sleep 2
http_raw "$EXPORTER_PORT" /metrics | tr -d '\r' | sed '1,/^\$/d' >/tmp/pod.txt
EOS
sh -c "echo \$\$ >$CG/cgroup.procs && exec rnic_res_holder -d rxe0 -q 3 -c 2 -m 1 -r 'sh /tmp/during.sh'" >/tmp/holder.txt ||
  fail "rnic_res_holder in the pod cgroup failed: $(cat /tmp/holder.txt)"
cp /tmp/pod.txt "$VMOUT/pod.prom"
line=$(grep "^rnic_resource_comm_qps{.*comm=\"rnic_res_holder\"" /tmp/pod.txt)
say "$line"
case $line in
  *"pod_uid=\"$UID_\""*"container_id=\"$CID\""* | *"container_id=\"$CID\""*"pod_uid=\"$UID_\""*) ;;
  *) fail "QPs of the process in pod $UID_ not attributed: $line" ;;
esac
[ "${line##* }" = 3 ] || fail "pod QPs: ${line##* }, want 3"

# --- expect: checks that hold are 1, the firmware one 0 -----------------------
snap
for c in active_ports link_layer mtu; do
  [ "$(val rnic_expect_check_ok "device=\"rxe0\".*check=\"$c\"")" = 1 ] || fail "expect $c should hold"
done
[ "$(val rnic_expect_check_ok 'device="rxe0",check="firmware"')" = 0 ] || fail "expect firmware should fail"
stop_exporter
