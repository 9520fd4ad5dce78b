#!/bin/sh
# snap.sh NAME: one recorder run plus the rdma tool's views of the same
# moment, into $OUT/NAME (inside the VM; capture.sh and many.sh call it).
B=${RNIC_TOOLS:-/work/wt/netlink/build/tests/tools}  # where EXTRA_BINS put them
d=$OUT/$1; mkdir -p $d
$B/netlink_recorder/rnic_netlink_recorder $d 2> $d/recorder.log; echo "recorder rc=$?" >> $d/recorder.log
rdma statistic show > $d/rdma-statistic.txt
rdma -j statistic show > $d/rdma-statistic.json
rdma link show > $d/rdma-link.txt
rdma res show > $d/rdma-res.txt
for t in qp cq mr pd ctx; do rdma res show $t > $d/rdma-res-$t.txt; done
rdma statistic mode supported > $d/rdma-stat-mode-supported.txt 2>&1
rdma statistic qp show > $d/rdma-stat-qp.txt 2>&1
