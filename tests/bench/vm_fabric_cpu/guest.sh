# The fabric probe's CPU per probe made and answered (tests/bench/README.md):
# both VMs run one exporter with the fabric collector only, each probing the
# other over rxe0 and rxe2 (one pair per rail) with the defaults, so each
# makes as many probes as it answers, as every host of a mesh does on
# average. Three windows of DUR seconds, started together in both VMs: the
# control (responder listening, no peer), unpaced (cpu_budget_percent 0:
# what every probe costs) and the default budget of 1 % (what the pacing
# leaves). Before them, reference.sh: the same busybox work that runs on
# the host, to scale emulated CPU to the host's.
DUR=${FABRIC_CPU_SECONDS:-60}
OTHER=server
[ "$VM_NAME" = server ] && OTHER=client
reachable "$PEER_IP" || fail "peer $PEER_IP unreachable over eth0"
reachable "$PEER_IP2" || fail "peer $PEER_IP2 unreachable over eth2"
# step NAME: wait until the other VM reached step NAME too.
step() {
  signal "$VM_NAME-$1"
  wait_for "$OTHER-$1" 300 || fail "$OTHER never reached $1"
}
step ref
ref=$(sh /case/reference.sh)
say "reference: $ref"

ticks() { awk '{ print $14 + $15 }' /proc/"$EXPORTER_PID"/stat; }
uticks() { awk '{ print $14 }' /proc/"$EXPORTER_PID"/stat; }
sys_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
sys_all() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
ncpu=$(grep -c '^processor' /proc/cpuinfo)
# window NAME: DUR seconds of the running exporter: exporter CPU (s), its
# user part, the guest's busy CPU, probes made (every result) and ok, the
# collector's own CPU counter and budget delay.
window() {
  snap
  local t0 u0 b0 a0 w0 p0 k0 c0 d0
  t0=$(ticks); u0=$(uticks); b0=$(sys_busy); a0=$(sys_all); w0=$(up)
  p0=$(val rnic_fabric_probes_total); k0=$(val rnic_fabric_probes_total 'result="ok"')
  c0=$(val rnic_fabric_cpu_seconds_total); d0=$(val rnic_fabric_budget_delay_seconds_total)
  sleep "$DUR"
  snap
  local t1 u1 b1 a1 w1 p1 k1 c1 d1
  t1=$(ticks); u1=$(uticks); b1=$(sys_busy); a1=$(sys_all); w1=$(up)
  p1=$(val rnic_fabric_probes_total); k1=$(val rnic_fabric_probes_total 'result="ok"')
  c1=$(val rnic_fabric_cpu_seconds_total); d1=$(val rnic_fabric_budget_delay_seconds_total)
  awk -v n="$1" -v t="$((t1 - t0))" -v u="$((u1 - u0))" -v b="$((b1 - b0))" \
    -v a="$((a1 - a0))" -v w0="$w0" -v w1="$w1" -v p0="$p0" -v p1="$p1" \
    -v k0="$k0" -v k1="$k1" -v c0="$c0" -v c1="$c1" -v d0="$d0" -v d1="$d1" \
    -v hz="$hz" -v ncpu="$ncpu" 'function z(x) { return x == "NA" ? 0 : x }
    BEGIN { w = w1 - w0
      printf "%s wall=%.1f exporter_s=%.2f user_s=%.2f guest_busy_s=%.2f ", n, w, t / hz, u / hz, ncpu * w * b / a
      printf "probes=%d ok=%d fabric_cpu_s=%.3f budget_delay_s=%.1f\n", z(p1) - z(p0), z(k1) - z(k0), z(c1) - z(c0), z(d1) - z(d0) }' |
    tee -a "$VMOUT/windows.txt"
}
FLAGS="--collector.disable-defaults --collector.fabric --collector.fabric.devices=rxe0|rxe2"
: >"$VMOUT/windows.txt"
echo "reference $ref" >>"$VMOUT/windows.txt"

step off
# shellcheck disable=SC2086 # FLAGS is a word list
start_exporter $FLAGS --config.file=/case/fabric-off.yml
window off
stop_exporter

for budget in 0 1; do
  sed "s/PEER/$PEER_IP/; s/BUDGET/$budget/" /case/fabric.yml >/tmp/fabric.yml
  step "start-$budget"
  # shellcheck disable=SC2086
  start_exporter $FLAGS --config.file=/tmp/fabric.yml
  # Both pairs connected on both ends, then one round more.
  i=0
  until snap && [ "$(val rnic_fabric_peer_up)" = 2 ]; do
    i=$((i + 1))
    [ $i -lt 120 ] || fail "pairs not up within 120 s"
    sleep 1
  done
  step "up-$budget"
  sleep 5
  window "budget$budget"
  step "done-$budget"
  stop_exporter
done
say "$(cat "$VMOUT/windows.txt")"
