#!/bin/sh
# Guest half of the roce collector's Soft-RoCE check (rxe on virtio-net eth0).
# Needs the exporter binary at /mnt/rnic_exporter (host share) with its
# libraries and /usr/sbin/ethtool in the initramfs (EXTRA_BINS). Writes
# captures to $OUT; exit 0 only if:
#  - rxe0 is found and mapped to eth0, MTU follows `ip link set mtu`,
#  - no PFC/discard series exist (virtio-net has no such ethtool names),
#  - dcbnl's EOPNOTSUPP for eth0 is logged exactly once over three scrapes.
ip() { /usr/sbin/ip "$@"; }
fail() { echo "FAIL: $*" >> "$OUT/roce-result.txt"; exit 1; }
rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add"
/usr/sbin/ethtool -S eth0 > "$OUT/ethtool-S-eth0.txt" 2>&1
/mnt/rnic_exporter --web.listen-address=127.0.0.1:9879 --collector.disable-defaults \
  --collector.roce --log.level=debug > "$OUT/exporter.log" 2>&1 &
PID=$!
i=0; until wget -q -O "$OUT/m1.txt" http://127.0.0.1:9879/metrics; do
  i=$((i+1)); [ $i -gt 50 ] && fail "exporter not up"; sleep 0.2; done
ip link set eth0 mtu 4200
wget -q -O "$OUT/m2.txt" http://127.0.0.1:9879/metrics || fail scrape2
wget -q -O "$OUT/m3.txt" http://127.0.0.1:9879/metrics || fail scrape3
kill $PID; wait $PID
grep -q '^rnic_netdev_mtu_bytes{device="rxe0",port="1",netdev="eth0"} 1500$' "$OUT/m1.txt" || fail "mtu 1500"
grep -q '^rnic_roce_mtu_4096_capable{device="rxe0",port="1",netdev="eth0"} 0$' "$OUT/m1.txt" || fail "4096 0"
grep -q '^rnic_roce_mtu_4096_capable{device="rxe0",port="1",netdev="eth0"} 1$' "$OUT/m2.txt" || fail "4096 1"
grep -q '^rnic_scrape_collector_success{collector="roce"} 1$' "$OUT/m3.txt" || fail "success"
grep -q '^rnic_pfc_\|^rnic_rx_\|^rnic_phy_\|^rnic_pcie_' "$OUT/m3.txt" && fail "PFC series on virtio-net"
[ "$(grep -c 'what=dcb/eth0' "$OUT/exporter.log")" = 1 ] || fail "dcb log count"
echo PASS >> "$OUT/roce-result.txt"
