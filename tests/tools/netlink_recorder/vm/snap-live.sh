#!/bin/sh
d=$OUT/rxe-live; mkdir -p $d
${RNIC_TOOLS:-/work/wt/netlink/build/tests/tools}/netlink_recorder/rnic_netlink_recorder $d 2> $d/recorder.log; echo "recorder rc=$?" >> $d/recorder.log
rdma statistic show > $d/rdma-statistic.txt
rdma -j statistic show > $d/rdma-statistic.json
rdma link show > $d/rdma-link.txt
rdma res show > $d/rdma-res.txt
for t in qp cq mr pd ctx; do rdma res show $t > $d/rdma-res-$t.txt; done
rdma statistic qp show > $d/rdma-stat-qp.txt 2>&1
