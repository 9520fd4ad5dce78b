# Issue 9, target 1: whole-process CPU per default scrape against the bare
# kernel cost of the same netlink information, on 16 Soft-RoCE ports, in one
# VM run, plus each default collector alone. A second floor adds the files
# under /sys the default exporter reads (held open: rnic_floor --part files). Figures only; the guest fails
# only if a step cannot run.
#
# Under TCG a busy host inflates guest CPU figures (the guest's clock runs on
# while its vCPU waits), and by different amounts from minute to minute. So
# every configuration's exporter runs at once, each on its own port, and the
# measurements are interleaved in BLOCKS blocks: per block the floor tool
# (each part), then a few scrapes of every exporter over a kept-alive gzip
# connection (rnic_vm_scrape_cpu). A load change hits them all alike.
#
# Parameters (tests/bench/vm_scrape_cost.sh writes /case/params.sh):
#   ROUNDS   rnic_floor rounds per part, over all blocks (default 96)
#   SCRAPES  scrapes per configuration, over all blocks (default 40)
#   BLOCKS   interleaved blocks (default 8)
#   CONFIGS  exporter configurations (see cfg_flags; "baseline" runs
#            /usr/bin/rnic_exporter_baseline with the default collectors)
ROUNDS=96
SCRAPES=40
BLOCKS=8
CONFIGS="default none sysfs roce netlink_stat netlink_resource kmsg pcie carrier ethtool"
PERF=
# shellcheck source=/dev/null
[ -f /case/params.sh ] && . /case/params.sh
RESULTS=$VMOUT/bench.txt
: >"$RESULTS"

# /init made rxe0 (eth0) and rxe1 (dummy0); rxe2..rxe15 go on dummy1..14.
i=1
while [ $i -le 14 ]; do
  ip link add "dummy$i" type dummy || fail "ip link add dummy$i"
  ip addr add "10.99.$i.1/24" dev "dummy$i" && ip link set "dummy$i" up ||
    fail "dummy$i up"
  rdma link add "rxe$((i + 1))" type rxe netdev "dummy$i" ||
    fail "rdma link add rxe$((i + 1))"
  i=$((i + 1))
done
nports=$(ls -d /sys/class/infiniband/*/ports/* | wc -l)
say "$nports rxe ports"
[ "$nports" -eq 16 ] || fail "expected 16 rxe ports, found $nports"
echo "guest ports=$nports cpus=$(grep -c '^processor' /proc/cpuinfo) kernel=$(uname -r) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown) blocks=$BLOCKS accel=${ACCEL:-tcg}" >>"$RESULTS"

cfg_flags() {
  case $1 in
    default | baseline) ;;
    none) echo "--collector.disable-defaults" ;;
    *) echo "--collector.disable-defaults --collector.$1" ;;
  esac
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Deferred work of the step before (closed connections, RCU, kworkers)
# otherwise lands in the next step's CPU time: the first step of a block
# measured 50 % high without this pause.
settle() { usleep 500000; }

# Ports from 9800 up: the harness's Prometheus scrapes the forwarded 9709
# every second, so only the measured scrapes reach these exporters.
n=0
for cfg in $CONFIGS; do
  EXPORTER_PORT=$((9800 + n))
  # "baseline": the default collectors of another build (BASELINE=).
  exporter_bin=$EXPORTER
  [ "$cfg" = baseline ] && EXPORTER=/usr/bin/rnic_exporter_baseline
  # shellcheck disable=SC2046 # flags are words
  start_exporter $(cfg_flags "$cfg")
  EXPORTER=$exporter_bin
  eval "PID_$cfg=$EXPORTER_PID PORT_$cfg=$EXPORTER_PORT"
  n=$((n + 1))
done

rnic_floor --rounds 2 >/dev/null || fail "rnic_floor (warm-up)"
# One scrape of the default exporter first, so that it holds open the files a
# default scrape reads: the floor's "files" part reads the same ones.
FILES_OF=
case " $CONFIGS " in
  *" default "*)
    FILES_OF=$PID_default
    rnic_vm_scrape_cpu --pid "$PID_default" --port "$PORT_default" --scrapes 1 \
      --warmup 0 --no-idle >/dev/null || fail "warm-up scrape (default)"
    ;;
esac
per_rounds=$((ROUNDS / BLOCKS))
per_scrapes=$((SCRAPES / BLOCKS))
[ $per_rounds -gt 0 ] && [ $per_scrapes -gt 0 ] || fail "ROUNDS and SCRAPES must be >= BLOCKS"
# One unmeasured block first: in an A/A run each exporter's first measured
# block cost 1.2-1.7 x its later ones (the "none" exporter 4 x: code not yet
# translated by TCG, caches not filled), and one block of eight carried that
# into the mean.
for part in all port res; do
  rnic_floor --rounds "$per_rounds" --part "$part" >/dev/null || fail "rnic_floor --part $part (warm-up)"
done
for cfg in $CONFIGS; do
  eval "pid=\$PID_$cfg port=\$PORT_$cfg"
  rnic_vm_scrape_cpu --pid "$pid" --port "$port" --scrapes "$per_scrapes" \
    --warmup 0 --no-idle >/dev/null || fail "rnic_vm_scrape_cpu ($cfg, warm-up)"
done
b=1
while [ $b -le "$BLOCKS" ]; do
  for part in all port res; do
    settle
    line=$(rnic_floor --rounds "$per_rounds" --part "$part") || fail "rnic_floor --part $part"
    echo "floor block=$b $line" >>"$RESULTS"
  done
  if [ -n "$FILES_OF" ]; then
    settle
    line=$(rnic_floor --rounds "$per_rounds" --part files --files-of "$FILES_OF") ||
      fail "rnic_floor --part files"
    echo "floor block=$b $line" >>"$RESULTS"
  fi
  # Every other block in the reverse order, so that a configuration's place
  # in the block cannot bias it (an A/A run with "baseline" always last read
  # +3.2 %, inside its noise).
  order=$CONFIGS
  if [ $((b % 2)) -eq 0 ]; then
    order=
    for cfg in $CONFIGS; do order="$cfg $order"; done
  fi
  for cfg in $order; do
    eval "pid=\$PID_$cfg port=\$PORT_$cfg"
    settle
    line=$(rnic_vm_scrape_cpu --pid "$pid" --port "$port" --scrapes "$per_scrapes" \
      --warmup 1 --no-idle) || fail "rnic_vm_scrape_cpu ($cfg)"
    echo "exporter config=$cfg block=$b $line" >>"$RESULTS"
  done
  say "block $b of $BLOCKS done"
  b=$((b + 1))
done

# PERF=1 (or a configuration's name): where the default exporter's time goes, kernel and user space
# (cpu-clock: TCG has no PMU), while it is scraped as in the blocks.
if [ -n "$PERF" ] && [ -n "$(command -v perf)" ]; then
  pcfg=$PERF
  [ "$pcfg" = 1 ] && pcfg=default
  eval "ppid=\$PID_$pcfg pport=\$PORT_$pcfg"
  echo 0 >/proc/sys/kernel/kptr_restrict
  echo -1 >/proc/sys/kernel/perf_event_paranoid
  perf record -e cpu-clock -F 499 -g -o /tmp/perf.data -p "$ppid" -- sleep 30 \
    >/dev/null 2>"$VMOUT/perf-record.err" &
  perf_pid=$!
  usleep 500000
  rnic_vm_scrape_cpu --pid "$ppid" --port "$pport" --scrapes 200 \
    --warmup 1 --no-idle >/dev/null || true
  wait "$perf_pid" || true
  perf report -i /tmp/perf.data --stdio --no-children --sort dso,sym \
    --percent-limit 0.3 -g none >"$VMOUT/perf.txt" 2>"$VMOUT/perf-report.err" || true
  perf report -i /tmp/perf.data --stdio --children --sort sym \
    --percent-limit 2 -g none >"$VMOUT/perf-children.txt" 2>/dev/null || true
  # Kernel against user space, per thread and per library: the floor's
  # profile below has the same kernel work, so the difference is ours.
  perf report -i /tmp/perf.data --stdio --no-children --sort comm,dso \
    --percent-limit 0.2 -g none >"$VMOUT/perf-dso.txt" 2>/dev/null || true
  # User space of each thread, by function, self and with its callees.
  for comm in rnic-collect rnic-scrape; do
    perf report -i /tmp/perf.data --stdio --no-children --comms "$comm" \
      --dsos rnic_exporter,libc.so.6,libstdc++.so.6,libmicrohttpd.so.12 \
      --sort sym --percent-limit 0.1 -g none >"$VMOUT/perf-user-$comm.txt" 2>/dev/null || true
    perf report -i /tmp/perf.data --stdio --children --comms "$comm" \
      --sort sym --percent-limit 1 -g none >"$VMOUT/perf-children-$comm.txt" 2>/dev/null || true
  done
  perf record -e cpu-clock -F 499 -g -o /tmp/perf-floor.data -- \
    rnic_floor --rounds 200 --part all >/dev/null 2>"$VMOUT/perf-floor.err" || true
  perf report -i /tmp/perf-floor.data --stdio --no-children --sort dso,sym \
    --percent-limit 0.3 -g none >"$VMOUT/perf-floor.txt" 2>/dev/null || true
  say "perf profile in $VMOUT/perf.txt"
  # Kernel crossings: syscalls by kind over 50 scrapes of that exporter and
  # over 50 floor rounds (perf trace -s), so extra requests or reads show
  # as counts, not only as time.
  perf trace -s -o "$VMOUT/syscalls-exporter.txt" -p "$ppid" \
    2>"$VMOUT/perf-trace.err" &
  trace_pid=$!
  usleep 500000
  rnic_vm_scrape_cpu --pid "$ppid" --port "$pport" --scrapes 50 \
    --warmup 0 --no-idle >/dev/null || true
  usleep 200000
  kill -INT "$trace_pid" 2>/dev/null || true
  wait "$trace_pid" || true
  perf trace -s -o "$VMOUT/syscalls-floor.txt" -- rnic_floor --rounds 50 --part all \
    >/dev/null 2>>"$VMOUT/perf-trace.err" || true
fi

# Idle: every exporter left alone for 10 s; the table subtracts that rate.
t0=$(up)
for cfg in $CONFIGS; do eval "I0_$cfg=\$(ticks \$PID_$cfg)"; done
sleep 10
t1=$(up)
for cfg in $CONFIGS; do
  eval "i0=\$I0_$cfg; i1=\$(ticks \$PID_$cfg)"
  echo "idle config=$cfg ticks=$((i1 - i0)) hz=$(getconf CLK_TCK 2>/dev/null || echo 100) t0=$t0 t1=$t1" >>"$RESULTS"
done

for cfg in $CONFIGS; do
  eval "EXPORTER_PID=\$PID_$cfg"
  stop_exporter
done
# What the kernel logged meanwhile (printk during scrapes costs CPU too).
dmesg >"$VMOUT/dmesg.txt" 2>/dev/null || true
say "results in $RESULTS"
