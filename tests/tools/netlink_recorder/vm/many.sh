#!/bin/sh
# A dump too big for one datagram: rnic_res_holder holds 1000 QPs, 200 CQs
# and 100 MRs on rxe0 while snap.sh records (fixture rxe-many).
ip() { /usr/sbin/ip "$@"; }
B=${RNIC_TOOLS:-/work/wt/netlink/build/tests/tools}  # where EXTRA_BINS put them
rdma link add rxe0 type rxe netdev eth0 || exit 1
rdma link add rxe1 type rxe netdev dummy0 || exit 1
$B/res_holder/rnic_res_holder -d rxe0 -q 1000 -c 200 -e 64 -m 100 -s 8192 -r "sh /mnt/snap.sh rxe-many" > $OUT/holder-many.txt 2>&1
echo "holder rc=$?" >> $OUT/holder-many.txt
exit 0
