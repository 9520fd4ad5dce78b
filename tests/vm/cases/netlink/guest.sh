# netlink_stat and netlink_resource on the real kernel:
#  1. every hw counter the exporter serves equals `rdma statistic show` read
#     at the same moment (no traffic in between), port state equals
#     `rdma link show`, and no family is exported twice (sysfs defers);
#  2. a test program holding a known number of QPs, CQs (known depth) and MRs
#     (known size) moves the resource metrics by exactly that much, and they
#     return to the baseline after it exits;
#  3. hot-remove of rxe1 while the exporter is scraped in a loop: every scrape
#     answers, rxe1's series vanish and come back after `rdma link add`, no
#     log line per scrape.
. /case/checks.sh
M=/tmp/m
mkdir -p $M
start_exporter

# --- 1. statistics ----------------------------------------------------------
rc_pingpong rxe0 40
scrape >$M/s1.txt || fail "scrape"
rdma statistic show >$M/rdma-stat.txt || fail "rdma statistic show"
rdma link show >$M/rdma-link.txt
scrape >$M/s2.txt || fail "scrape"
cp $M/s1.txt $M/rdma-stat.txt "$VMOUT/" 2>/dev/null
n=0
while read -r link devport rest; do
  [ "$link" = link ] || continue
  dev=${devport%/*} port=${devport#*/}
  set -- $rest
  while [ $# -ge 2 ]; do
    # Both scrapes bracket the rdma read: equal to both, so nothing moved.
    expect_value $M/s1.txt "rnic_hw_$1_total" "$2" device=$dev port=$port
    expect_value $M/s2.txt "rnic_hw_$1_total" "$2" device=$dev port=$port
    n=$((n + 1))
    shift 2
  done
done <$M/rdma-stat.txt
[ $n -ge 30 ] || fail "compared only $n counters (2 rxe ports x 15 expected)"
sent=$(value $M/s1.txt rnic_hw_sent_pkts_total device=rxe0 port=1)
[ "${sent%%.*}" -ge 80 ] 2>/dev/null || fail "rxe0 sent_pkts $sent after 40 ping-pongs"
say "statistics: $n counters equal rdma statistic show (rxe0 sent_pkts $sent)"
while read -r link devport _ state _ phys _; do
  dev=${devport%/*} port=${devport#*/}
  case $state in ACTIVE) s=4 ;; DOWN) s=1 ;; INIT) s=2 ;; ARMED) s=3 ;; *) fail "state $state" ;; esac
  case $phys in LINK_UP) p=5 ;; DISABLED) p=3 ;; POLLING) p=2 ;; SLEEP) p=1 ;; *) fail "phys $phys" ;; esac
  expect_value $M/s1.txt rnic_port_state $s device=$dev port=$port
  expect_value $M/s1.txt rnic_port_physical_state $p device=$dev port=$port
done <$M/rdma-link.txt
for f in rnic_hw_sent_pkts_total rnic_port_state rnic_port_physical_state; do
  [ "$(family_count $M/s1.txt $f)" = 1 ] || fail "$f exported $(family_count $M/s1.txt $f) times"
done
say "port state equals rdma link show; no family exported twice"

# --- 2. resources -------------------------------------------------------------
scrape >$M/r0.txt || fail "scrape"
cat >/tmp/during.sh <<EOS
. /usr/lib/rnicvm/lib.sh  # http_raw
http_raw "$EXPORTER_PORT" /metrics | tr -d '\r' | sed '1,/^\$/d' >$M/r1.txt
rdma res show >$M/rdma-res-live.txt
EOS
rnic_res_holder -d rxe0 -q 7 -c 3 -e 100 -m 4 -s 1048576 -r "sh /tmp/during.sh" >$M/holder.txt ||
  fail "rnic_res_holder failed: $(cat $M/holder.txt)"
scrape >$M/r2.txt || fail "scrape"
cp $M/r0.txt $M/r1.txt $M/r2.txt $M/holder.txt "$VMOUT/" 2>/dev/null
H=$M/holder.txt
C="device=rxe0 comm=rnic_res_holder"
[ -z "$(value $M/r0.txt rnic_resource_cqs $C)" ] || fail "holder series before it ran"
expect_value $M/r1.txt rnic_resource_comm_qps "$(holder_field $H qps)" $C
expect_value $M/r1.txt rnic_resource_cqs "$(holder_field $H cqs)" $C
expect_value $M/r1.txt rnic_resource_cq_entries "$(holder_field $H cqe_total)" $C
expect_value $M/r1.txt rnic_resource_cq_max_entries "$(holder_field $H cqe_max)" $C
expect_value $M/r1.txt rnic_resource_mrs "$(holder_field $H mrs)" $C
expect_value $M/r1.txt rnic_resource_mr_pinned_bytes "$(holder_field $H mr_bytes)" $C
expect_value $M/r1.txt rnic_resource_pds 1 $C
expect_value $M/r1.txt rnic_resource_contexts 1 $C
expect_value $M/r1.txt rnic_resource_qps "$(holder_field $H qps)" device=rxe0 port=0 qp_type=RC state=RESET
for r in qp:qps cq:cqs mr:mrs pd:pds ctx:ctxs; do
  res=${r%:*} key=${r#*:}
  b=$(value $M/r0.txt rnic_resource_objects device=rxe0 resource=$res)
  l=$(value $M/r1.txt rnic_resource_objects device=rxe0 resource=$res)
  a=$(value $M/r2.txt rnic_resource_objects device=rxe0 resource=$res)
  same "$l" "$((${b%%.*} + $(holder_field $H $key)))" || fail "$res: $b -> $l while holding $(holder_field $H $key)"
  same "$a" "$b" || fail "$res: back to $a after exit, baseline $b"
done
[ -z "$(value $M/r2.txt rnic_resource_cqs $C)" ] || fail "holder series left after it exited"
say "resources: +$(holder_field $H qps) QPs, +$(holder_field $H cqs) CQs ($(holder_field $H cqe_total) CQEs), +$(holder_field $H mrs) MRs ($(holder_field $H mr_bytes) B) exactly, then back to baseline"

# --- 3. hot-remove mid-scrape ----------------------------------------------
lines0=$(log_lines)
(
  i=0
  while [ $i -lt 25 ]; do
    scrape >/dev/null || echo "scrape $i failed"
    i=$((i + 1))
  done
) >$M/loop.txt 2>&1 &
loop=$!
usleep 300000
rdma link delete rxe1 || fail "rdma link delete rxe1"
wait $loop
[ ! -s $M/loop.txt ] || fail "scrapes failed during hot-remove: $(cat $M/loop.txt)"
exporter_alive || fail "exporter died during hot-remove"
scrape >$M/h1.txt || fail "scrape after removal"
! grep -q 'device="rxe1"' $M/h1.txt || fail "rxe1 series left after removal: $(grep 'device="rxe1"' $M/h1.txt | head -3)"
expect_value $M/h1.txt rnic_scrape_collector_success 1 collector=netlink_stat
expect_value $M/h1.txt rnic_scrape_collector_success 1 collector=netlink_resource
lines1=$(log_lines)
for i in 1 2 3 4 5; do scrape >/dev/null || fail "scrape"; done
[ "$(log_lines)" = "$lines1" ] || fail "log grows with every scrape after removal: $(tail -3 "$EXPORTER_LOG")"
rdma link add rxe1 type rxe netdev dummy0 || fail "rdma link add rxe1"
scrape >$M/h2.txt || fail "scrape after re-add"
[ -n "$(value $M/h2.txt rnic_hw_sent_pkts_total device=rxe1 port=1)" ] || fail "rxe1 series did not come back"
say "hot-remove: 25 scrapes answered, rxe1 vanished and came back, log $lines0 -> $(log_lines) lines"
stop_exporter
