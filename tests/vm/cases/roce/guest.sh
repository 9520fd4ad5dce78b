# roce collector on real Soft-RoCE: rxe0 on virtio-net eth0, rxe1 on dummy0.
# Real sysfs discovery (link_layer Ethernet -> netdev), real SIOCETHTOOL on
# virtio-net (statistics, but no PFC names: no congestion series may
# appear) and on dummy0 (none), real dcbnl (EOPNOTSUPP, logged once), and
# an MTU change that host.py must see in Prometheus.
start_exporter --collector.disable-defaults --collector.roce --log.level=debug
m=$(scrape) || fail "first scrape"
echo "$m" >"$VMOUT/metrics-1.txt"
for nd in "rxe0 eth0" "rxe1 dummy0"; do
  set -- $nd
  echo "$m" | grep -q "^rnic_netdev_mtu_bytes{device=\"$1\",port=\"1\",netdev=\"$2\"} 1500\$" ||
    fail "no MTU series for $1/$2"
done
echo "$m" | grep -q '^rnic_roce_mtu_4096_capable{device="rxe0",port="1",netdev="eth0"} 0$' ||
  fail "4096 capable should be 0 at MTU 1500"
# virtio-net and dummy have no PFC, discard or PCIe names: nothing, not zeros.
if echo "$m" | grep -E '^rnic_(pfc_|rx_|phy_|pcie_|dcb_|roce_ecn)'; then
  fail "congestion/DCB series without a source"
fi
echo "$m" | grep -q '^rnic_scrape_collector_success{collector="roce"} 1$' || fail "collector failed"
signal exporter-up
wait_for baseline 90 || fail "host never saw the MTU-1500 state"
ip link set eth0 mtu 4200 || fail "set mtu"
signal mtu-raised
wait_host 90 || fail "host side failed"
scrape >"$VMOUT/metrics-2.txt" || fail "last scrape"
# Each skipped value is logged once over all the scrapes.
for what in dcb/eth0 dcb/dummy0 ethtool/dummy0; do
  n=$(grep -c "key=$what " "$EXPORTER_LOG")
  [ "$n" = 1 ] || fail "$what logged $n times"
done
grep -q 'key=ethtool/eth0 ' "$EXPORTER_LOG" && fail "virtio-net statistics failed to read"
stop_exporter
