#!/bin/sh
# Records RDMA netlink fixtures inside the Soft-RoCE VM.
ip() { /usr/sbin/ip "$@"; }
B=${RNIC_TOOLS:-/work/wt/netlink/build/tests/tools}  # where EXTRA_BINS put them
REC=$B/netlink_recorder/rnic_netlink_recorder
HOLD=$B/res_holder/rnic_res_holder
rdma link add rxe0 type rxe netdev eth0 || exit 1
rdma link add rxe1 type rxe netdev dummy0 || exit 1
uname -r > $OUT/kernel.txt

snap() { sh /mnt/snap.sh "$1"; }  # snap NAME: recorder + rdma tool views
snap rxe-idle
ibv_rc_pingpong -d rxe0 -g 1 -n 50 > /tmp/s.txt 2>&1 &
sleep 1; ibv_rc_pingpong -d rxe0 -g 1 -n 50 127.0.0.1 > /tmp/c.txt 2>&1 || echo "pingpong failed"
wait
snap rxe-traffic
# live resources: 5 RC QPs, 3 CQs of 100 requested CQEs, 4 MRs of 64 KiB
$HOLD -d rxe0 -q 5 -c 3 -e 100 -m 4 -s 65536 -r "sh /mnt/snap.sh rxe-live" > $OUT/holder.txt 2>&1
echo "holder rc=$?" >> $OUT/holder.txt
# hot-remove while the recorder scrapes in a loop: must never crash
( i=0; while [ $i -lt 15 ]; do $REC /tmp/loop > /dev/null 2>&1; echo "loop $i rc=$?"; i=$((i+1)); done ) > $OUT/hotplug-loop.txt &
sleep 1
rdma link delete rxe1; sleep 1; rdma link add rxe1 type rxe netdev dummy0; sleep 1; rdma link delete rxe1
wait
snap rxe-removed
exit 0
