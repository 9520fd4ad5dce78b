# The probe on rxe0 through the real exporter: every operation's latency
# histogram fills; the p50 of RDMA WRITE 64 B is compared with ib_write_lat
# (run first, same VM, same device); the test build's overrun of the
# probe's own CQ is counted as cq_err through the async-event thread (the shipped exporter refuses that key); CQ error lines written into
# /dev/kmsg are counted by the kmsg collector and mapped to rxe0 through
# rxe0 -> parent eth0 -> virtio PCI function.
# p50 REGEX: median of rnic_probe_latency_seconds for the matching series,
# interpolated inside the bucket as histogram_quantile() does.
p50() {
  awk -v re="$1" '
    /^rnic_probe_latency_seconds_bucket/ && $0 ~ re {
      match($0, /le="[^"]*"/); n++; L[n] = substr($0, RSTART + 4, RLENGTH - 5); C[n] = $NF }
    END {
      rank = C[n] * 0.5; pc = 0
      for (i = 1; i <= n; i++) {
        if (L[i] == "+Inf") { print L[i - 1]; exit }
        if (C[i] >= rank) { lo = (i == 1) ? 0 : L[i - 1]; printf "%.9g\n", lo + (L[i] - lo) * (rank - pc) / (C[i] - pc); exit }
        pc = C[i]
      }
    }' $M
}

# --- reference: perftest on the same device, before the probe runs ---------
# Best of three runs: ib_write_lat's two busy-polling processes need both
# vCPUs, so host contention only ever makes a run slower (seen: 100x, 4 ms);
# the fastest run is the path's own latency.
ref_us=""
for run in 1 2 3; do
  ib_write_lat -d rxe0 -x 1 -s 64 -n 1000 -F >/tmp/lat-srv.txt 2>&1 &
  srv=$!
  sleep 1
  ib_write_lat -d rxe0 -x 1 -s 64 -n 1000 -F 127.0.0.1 >/tmp/lat-cli.txt 2>&1 ||
    { cat /tmp/lat-cli.txt; fail "ib_write_lat client failed"; }
  wait $srv
  cp /tmp/lat-cli.txt "$VMOUT/ib_write_lat.$run.txt"
  r=$(awk '$1 == 64 && NF >= 5 { print $5 }' /tmp/lat-cli.txt)
  [ -n "$r" ] || fail "no t_typical in ib_write_lat output"
  ref_us=$(awk -v a="$ref_us" -v b="$r" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
done
say "ib_write_lat 64 B t_typical = $ref_us us (best of 3)"

# The shipped exporter refuses the test-only key; the test build
# (tests/tools/probe_test_hooks) knows it.
rc=0
timeout 30 "$EXPORTER" --collector.disable-defaults --collector.probe \
  --config.file=/case/probe.yml >/tmp/refused.txt 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "rnic_exporter did not refuse probe.test_cq_overrun (exit $rc)"
grep -q 'probe.test_cq_overrun: unknown key' /tmp/refused.txt ||
  fail "rnic_exporter did not name the unknown key: $(cat /tmp/refused.txt)"
EXPORTER=/usr/bin/rnic_exporter_test_hooks
start_exporter --collector.disable-defaults --collector.probe --collector.kmsg \
  --config.file=/case/probe.yml
# --- every operation's histogram fills --------------------------------------
SERIES="send:64 send:4096 write:64 write:4096 read:64 read:4096 atomic_cmp_swap:8 atomic_fetch_add:8"
n=0
while :; do
  snap
  short=""
  for s in $SERIES; do
    op=${s%%:*} sz=${s#*:}
    c=$(val rnic_probe_latency_seconds_count "device=\"rxe0\",port=\"1\",operation=\"$op\",size_bytes=\"$sz\"")
    ge "$c" 100 || short="$short $s=$c"
  done
  [ -z "$short" ] && break
  n=$((n + 1))
  [ $n -lt 120 ] || fail "histograms still short after 60 s:$short"
  usleep 500000
done
say "all 8 latency histograms have >= 100 samples"
signal probe-filled
cp $M "$VMOUT/metrics-probe.prom"
[ "$(val rnic_probe_success 'device="rxe0"')" = 1 ] || fail "rnic_probe_success{rxe0} != 1"
[ "$(val rnic_probe_completion_errors_total)" = NA ] || [ "$(val rnic_probe_completion_errors_total)" = 0 ] ||
  fail "completion errors on a healthy port"
for sz in 4096 1048576 67108864; do
  ge "$(val rnic_probe_mr_registration_seconds_count "size_bytes=\"$sz\"")" 1 || fail "no MR registration sample for $sz B"
done

# --- p50 of WRITE 64 B vs ib_write_lat ----------------------------------------
probe_s=$(p50 'device="rxe0",port="1",operation="write",size_bytes="64"')
ratio=$(awk -v p="$probe_s" -v r="$ref_us" 'BEGIN { printf "%.2f", p * 1e6 / r }')
say "probe write 64 B p50 = $(awk -v p="$probe_s" 'BEGIN { printf "%.2f", p * 1e6 }') us; ib_write_lat t_typical = $ref_us us; ratio = $ratio"
signal p50 "$probe_s"
echo "probe_p50_us=$(awk -v p="$probe_s" 'BEGIN { printf "%.2f", p * 1e6 }') ib_write_lat_typical_us=$ref_us ratio=$ratio" >"$VMOUT/latency-ratio.txt"
# Measured here: 1.8-2.3 on a quiet host, 4.2 at a host load of 13 on 2
# cores (the probe times one thread's WRITE ping-pong with a responder
# thread; perftest's two processes each own a vCPU). Outside [0.25, 8] the
# probe measures something other than the path (a unit slip, the wrong
# side's clock, a poll that sleeps).
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.25 && r <= 8) }' ||
  fail "probe/ib_write_lat p50 ratio $ratio is outside [0.25, 8]"

# --- CQ overrun through the async-event path ---------------------------------
ge "$(val rnic_async_events_total 'device="rxe0",port="1",event="cq_err"')" 1 ||
  fail "no cq_err async event from the overrun probe CQ"
say "cq_err events: $(val rnic_async_events_total 'event="cq_err"')"

# --- kernel log lines --------------------------------------------------------
bdf=$(basename "$(dirname "$(readlink -f /sys/class/net/eth0/device)")")
say "eth0 (rxe0's parent) is PCI $bdf"
for i in 1 2 3; do
  echo "<3>mlx5_core $bdf: cq_err_event_notifier:517:(pid 0): CQ error on CQN 0x1$i, syndrome 0x1" >/dev/kmsg
done
echo "<3>mlx5_core $bdf: cq_err_event_notifier:517:(pid 0): CQ error on CQN 0x20, syndrome 0x2" >/dev/kmsg
echo "<3>mlx5_core 0000:7f:00.0: cq_err_event_notifier:517:(pid 0): CQ error on CQN 0x21, syndrome 0x1" >/dev/kmsg
n=0
until snap && [ "$(val rnic_kernel_cq_errors_total 'syndrome="0x1"')" = 4 ]; do
  n=$((n + 1)); [ $n -lt 50 ] || { grep kernel_cq $M; fail "kmsg lines not counted"; }
  usleep 200000
done
grep rnic_kernel_cq_errors_total $M | grep -v '^#' | tee "$VMOUT/kmsg.prom"
[ "$(val rnic_kernel_cq_errors_total "device=\"rxe0\",pci=\"$bdf\",syndrome=\"0x1\",reason=\"overrun\"")" = 3 ] ||
  fail "overrun lines not mapped to rxe0"
[ "$(val rnic_kernel_cq_errors_total "device=\"rxe0\",pci=\"$bdf\",syndrome=\"0x2\",reason=\"access_violation\"")" = 1 ] ||
  fail "access violation line not counted"
[ "$(val rnic_kernel_cq_errors_total 'device="",pci="0000:7f:00.0",syndrome="0x1"')" = 1 ] ||
  fail "unmapped PCI address not counted under device=\"\""
signal kmsg-done
wait_host 120 || fail "host side failed"
stop_exporter
