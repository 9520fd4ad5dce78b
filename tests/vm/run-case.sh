#!/usr/bin/env bash
# Run one VM test case:
#   1. prepare the kernel and initramfs (cached; see prepare.sh),
#   2. boot one VM (or two joined by a socket netdev on 127.0.0.1) under qemu,
#      the exporter port forwarded to a free port on 127.0.0.1,
#   3. start a Prometheus server scraping the forwarded exporter(s) every 1 s,
#   4. run the case's host.py / host.sh (if any) while the VMs run,
#   5. exit 0 only if every guest.sh and the host script exited 0.
#
# usage: run-case.sh CASE   (a directory, or a name under tests/vm/cases)
# Knobs (environment): RNIC_VM_TIMEOUT, RNIC_VM_ACCEL, RNIC_VM_SMP, RNIC_VM_MEM,
# RNIC_VM_PROM_PORT (Prometheus on a fixed 127.0.0.1 port), RNIC_VM_APPEND
# (more guest kernel command line: a case.conf APPEND, then this),
# RNIC_VM_NIC_SPEED, RNIC_VM_RUN_DIR, RNIC_VM_NO_PREPARE=1, RNIC_VM_VERBOSE=1,
# RNIC_VM_LINK=stream (links between two VMs over qemu's TCP stream mode);
# see README.md.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"

[ $# -eq 1 ] || die "usage: $0 CASE_DIR|CASE_NAME"
if [ -d "$1" ]; then CASE_DIR=$(cd "$1" && pwd); else CASE_DIR=$VM_DIR/cases/$1; fi
[ -f "$CASE_DIR/guest.sh" ] || die "no guest.sh in $CASE_DIR"
CASE=$(basename "$CASE_DIR")

# Case defaults; case.conf (sourced) may change them, the environment wins.
VMS=1                 # 1, or 2 for a server/client pair
TIMEOUT=180           # hard limit for the whole case, seconds
NIC_SPEED=25000       # virtio-net speed= in Mb/s: becomes rxe0's port rate
RULES=""              # Prometheus rule files, relative to the repository root
RULES_TIME_SCALE=""   # if set, RULES are loaded with every duration divided by it
LINKS=1               # two-VM cases: 2 adds a second link (eth2, 10.0.4.0/24, rxe2)
MACHINE=pc            # pc, or q35: each NIC behind its own PCIe root port
SCRAPE_INTERVAL=1s    # Prometheus' scrape interval and timeout
APPEND=""             # more guest kernel command line
EXPORTERS=""          # one-VM cases: "NAME:GUEST_PORT ..." exporters of the guest,
                      # each forwarded and scraped as target {exporter: NAME}
[ -f "$CASE_DIR/case.conf" ] && . "$CASE_DIR/case.conf"
TIMEOUT=${RNIC_VM_TIMEOUT:-$TIMEOUT}
NIC_SPEED=${RNIC_VM_NIC_SPEED:-$NIC_SPEED}
ACCEL=${RNIC_VM_ACCEL:-tcg}
# Two TCG VMs on a 2-core machine: one vCPU each.
SMP=${RNIC_VM_SMP:-$([ "$VMS" = 2 ] && echo 1 || echo 2)}
MEM=${RNIC_VM_MEM:-2048}
LINK_MODE=${RNIC_VM_LINK:-udp}
case $LINK_MODE in udp | stream) ;; *) die "RNIC_VM_LINK: udp or stream, not '$LINK_MODE'" ;; esac
GUEST_PORT=9709 # the exporter's port inside the guest
RUN=${RNIC_VM_RUN_DIR:-$RNIC_VM_BUILD/runs/$CASE}
case $VMS in
  1) NAMES=(vm0) ;;
  2) NAMES=(server client) ;;
  *) die "case.conf: VMS must be 1 or 2" ;;
esac
case $LINKS in 1 | 2) ;; *) die "case.conf: LINKS must be 1 or 2" ;; esac
[ "$LINKS" = 1 ] || [ "$VMS" = 2 ] || die "case.conf: LINKS=2 needs VMS=2"
case $MACHINE in pc | q35) ;; *) die "case.conf: MACHINE must be pc or q35" ;; esac
[ -z "$EXPORTERS" ] || [ "$VMS" = 1 ] || die "case.conf: EXPORTERS needs VMS=1"
for e in $EXPORTERS; do
  [[ $e =~ ^[a-z][a-z0-9_]*:[0-9]+$ ]] || die "case.conf: EXPORTERS entry '$e' is not NAME:PORT"
done

T_START=$(now)
DEADLINE=$(($(date +%s) + TIMEOUT))

# --- can qemu run here at all? -------------------------------------------
need_cmd qemu-system-x86_64 qemu-system-x86
need_cmd prometheus prometheus
need_cmd curl curl
need_cmd ss iproute2
need_cmd python3 python3
case $ACCEL in
  tcg) ACCEL_ARGS=(-accel "tcg,thread=multi" -cpu max) ;;
  # Guest time counts instructions (1 ns each): CPU time in the guest no
  # longer depends on how busy the host is, nor on how costly each
  # instruction is to emulate. One host thread runs every vCPU.
  # (Debian 12's qemu 7.2 then hangs bringing up a second vCPU: use SMP=1.)
  tcg-icount) ACCEL_ARGS=(-accel "tcg,thread=single" -icount "shift=0,sleep=on" -cpu max) ;;
  kvm) [ -w /dev/kvm ] || die "RNIC_VM_ACCEL=kvm but /dev/kvm is not usable"
    ACCEL_ARGS=(-accel kvm -cpu host) ;;
  *) die "RNIC_VM_ACCEL must be tcg, tcg-icount or kvm" ;;
esac
qemu-system-x86_64 -accel help 2>/dev/null | grep -qx "${ACCEL%-icount}" ||
  die "qemu-system-x86_64 cannot run here: it has no '$ACCEL' accelerator ($(qemu-system-x86_64 -accel help 2>&1 | tr '\n' ' '))"

if [ "${RNIC_VM_NO_PREPARE:-0}" != 1 ]; then
  "$VM_DIR/prepare.sh" || die "preparing the kernel/initramfs failed"
fi
load_kernel_facts || die "no kernel in $RNIC_VM_CACHE (run tests/vm/prepare.sh)"
INITRD=$RNIC_VM_BUILD/initramfs.cpio
[ -f "$INITRD" ] || die "no initramfs at $INITRD (run tests/vm/prepare.sh)"

rm -rf "$RUN"
mkdir -p "$RUN/sync" || die "cannot create $RUN"
# Sanitizer settings reach the guest's exporter (an ASan build in CI); the
# demo's knobs reach its guest script.
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS DEMO_CYCLE DEMO_LOSS; do
  [ -n "${!v:-}" ] && printf "export %s='%s'\n" "$v" "${!v}"
done >"$RUN/guest.env"
PROM_DATA=$(mktemp -d "${TMPDIR:-/tmp}/rnicvm-prom.XXXXXX")
PIDS=()
HOST_PID=
cleanup() {
  local p
  [ -n "${HOST_PID:-}" ] && kill -TERM -- "-$HOST_PID" 2>/dev/null
  for p in "${PIDS[@]}"; do kill -TERM -- "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$PROM_DATA"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

port_listening() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

# start_vm INDEX: boots NAMES[INDEX]; sets FWD_PORT[INDEX], VM_PID[INDEX].
declare -a FWD_PORT VM_PID
# Host ports of the EXPORTERS forwards, by name.
declare -A EXP_FWD
# UDP ports of the links' ends: LINK_UDP[2 * link + vm].
declare -a LINK_UDP
free_udp_port() {
  python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
# link_netdev ID LINK VM: the -netdev of VM's end of LINK (0: eth0, 1: eth2).
# The ports are picked once, by the first VM (not in a subshell).
pick_link_ports() {
  local k
  for k in 0 1 2 3; do
    [ -n "${LINK_UDP[$k]:-}" ] || LINK_UDP[$k]=$(free_udp_port)
  done
}
link_netdev() {
  local id=$1 l=$2 v=$3
  if [ "$LINK_MODE" = stream ]; then
    # qemu's TCP stream mode, Nagle on: VM 0 listens on its own end's port.
    if [ "$v" = 0 ]; then
      echo "socket,id=$id,listen=127.0.0.1:${LINK_UDP[$((2 * l))]}"
    else
      echo "socket,id=$id,connect=127.0.0.1:${LINK_UDP[$((2 * l))]}"
    fi
    return
  fi
  echo "socket,id=$id,udp=127.0.0.1:${LINK_UDP[$((2 * l + 1 - v))]},localaddr=127.0.0.1:${LINK_UDP[$((2 * l + v))]}"
}
# add_nic NETDEV_ID PROPS: appends one virtio NIC to net[]; on q35 it sits
# behind a PCIe root port of its own, so it has PCIe link attributes.
NIC_SLOT=0
add_nic() {
  if [ "$MACHINE" = q35 ]; then
    NIC_SLOT=$((NIC_SLOT + 1))
    net+=(-device "pcie-root-port,id=rp$NIC_SLOT,bus=pcie.0,chassis=$NIC_SLOT,slot=$NIC_SLOT"
      -device "virtio-net-pci,bus=rp$NIC_SLOT,netdev=$1${2:+,$2}")
  else
    net+=(-device "virtio-net-pci,netdev=$1${2:+,$2}")
  fi
}
start_vm() {
  local i=$1 name=${NAMES[$1]} port pid dir=$RUN/${NAMES[$1]}
  local append net=()
  mkdir -p "$dir"
  # no_timer_check: under TCG on a loaded host the kernel's boot check of
  # the IO-APIC timer can miss its ticks and panic ("timer doesn't work").
  append="console=ttyS0 loglevel=3 panic=-1 no_timer_check rnicvm.name=$name rnicvm.port=$GUEST_PORT${APPEND:+ $APPEND}${RNIC_VM_APPEND:+ $RNIC_VM_APPEND}"
  for _ in 1 2 3; do
    port=$(free_port)
    NIC_SLOT=0
    local user="user,id=mgmt,restrict=on,hostfwd=tcp:127.0.0.1:$port-:$GUEST_PORT"
    local e
    for e in $EXPORTERS; do
      EXP_FWD[${e%%:*}]=$(free_port)
      user="$user,hostfwd=tcp:127.0.0.1:${EXP_FWD[${e%%:*}]}-:${e##*:}"
    done
    if [ "$VMS" = 1 ]; then
      net=(-netdev "$user")
      add_nic mgmt "speed=$NIC_SPEED,duplex=full"
    else
      # eth0 = the link between the VMs (rxe0, netem), eth1 = user net for
      # the forwarded exporter port only. The links are UDP datagrams
      # between the two qemu processes: qemu's TCP stream mode leaves
      # Nagle on, and Nagle with delayed ACKs held small frames (RoCE ACKs,
      # pings) for tens of milliseconds.
      pick_link_ports
      net=(-netdev "$(link_netdev data 0 "$i")")
      add_nic data "mac=52:54:00:00:03:0$((i + 1)),speed=$NIC_SPEED,duplex=full"
      net+=(-netdev "$user")
      add_nic mgmt "mac=52:54:00:00:02:0$((i + 1))"
      append="$append rnicvm.mgmt=1 rnicvm.ip=10.0.3.$((i + 1))/24 rnicvm.peer=10.0.3.$((2 - i))"
      if [ "$LINKS" = 2 ]; then
        # eth2: a second link on its own subnet (rxe2).
        net+=(-netdev "$(link_netdev data2 1 "$i")")
        add_nic data2 "mac=52:54:00:00:04:0$((i + 1)),speed=$NIC_SPEED,duplex=full"
        append="$append rnicvm.ip2=10.0.4.$((i + 1))/24 rnicvm.peer2=10.0.4.$((2 - i))"
      fi
    fi
    timeout --kill-after=5 "$TIMEOUT" qemu-system-x86_64 "${ACCEL_ARGS[@]}" \
      -smp "$SMP" -m "$MEM" -machine "$MACHINE" -nodefaults -no-reboot -display none \
      -monitor none -serial stdio \
      -kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$INITRD" -append "$append" \
      "${net[@]}" \
      -virtfs "local,path=$RUN,mount_tag=rnicvm_out,security_model=none" \
      -virtfs "local,path=$CASE_DIR,mount_tag=rnicvm_case,security_model=none,readonly=on" \
      </dev/null >"$dir/serial.log" 2>"$dir/qemu.log" &
    pid=$!
    # qemu binds the forward (and the link's listen socket) before the
    # guest starts: wait for that, or for qemu to die.
    local n=100
    while kill -0 "$pid" 2>/dev/null && ! port_listening "$port" && [ $n -gt 0 ]; do
      sleep 0.1
      n=$((n - 1))
    done
    if kill -0 "$pid" 2>/dev/null && port_listening "$port"; then
      FWD_PORT[$i]=$port
      VM_PID[$i]=$pid
      PIDS+=("$pid")
      log "$name: qemu pid $pid, exporter forwarded to 127.0.0.1:$port"
      return 0
    fi
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if grep -q -i -E 'forwarding rule|address already in use' "$dir/qemu.log"; then
      log "$name: port $port taken meanwhile, retrying"
      [ "$i" = 0 ] && LINK_UDP=()
      continue
    fi
    die "qemu could not start $name: $(head -c 2000 "$dir/qemu.log")"
  done
  die "qemu could not bind a free port on 127.0.0.1 after 3 attempts"
}

# Optional host-side preparation before the VMs boot: host-prepare.sh RUN may
# write files the guests read under /out (certificates, ...) and print YAML
# lines that are added to the Prometheus job (scheme, tls_config, basic_auth).
JOB_EXTRA=
if [ -f "$CASE_DIR/host-prepare.sh" ]; then
  JOB_EXTRA=$(cd "$CASE_DIR" && bash ./host-prepare.sh "$RUN") ||
    die "host-prepare.sh failed"
fi

log "case $CASE: $VMS VM(s), accel $ACCEL, smp $SMP, timeout ${TIMEOUT}s, run dir $RUN"
start_vm 0
if [ "$VMS" = 2 ]; then
  start_vm 1
fi

# --- Prometheus --------------------------------------------------------------
mkdir -p "$RUN/prometheus"
PROM_CFG=$RUN/prometheus/prometheus.yml
{
  echo "global: {scrape_interval: $SCRAPE_INTERVAL, scrape_timeout: $SCRAPE_INTERVAL, evaluation_interval: 1s}"
  echo "rule_files:"
  for r in $RULES; do
    case $r in /*) ;; *) r=$REPO_DIR/$r ;; esac
    for f in $r; do
      [ -f "$f" ] || die "rule file $f (RULES in case.conf) not found"
      if [ -n "$RULES_TIME_SCALE" ]; then
        # The shipped rules with time compressed (tests/vm/host/scale_rules.py).
        f=$(python3 "$VM_DIR/host/scale_rules.py" "$RULES_TIME_SCALE" \
          "$RUN/prometheus/rules" "$f") || die "cannot scale rule file $f"
      fi
      echo "  - '$f'"
    done
  done
  [ -n "$RULES" ] || echo "  []"
  echo "scrape_configs:"
  echo "  - job_name: rnic"
  [ -z "$JOB_EXTRA" ] || printf '%s\n' "$JOB_EXTRA" | sed 's/^/    /'
  echo "    static_configs:"
  if [ -n "$EXPORTERS" ]; then
    for e in $EXPORTERS; do
      echo "      - targets: ['127.0.0.1:${EXP_FWD[${e%%:*}]}']"
      echo "        labels: {vm: ${NAMES[0]}, exporter: ${e%%:*}}"
    done
  else
    for i in "${!NAMES[@]}"; do
      echo "      - targets: ['127.0.0.1:${FWD_PORT[$i]}']"
      echo "        labels: {vm: ${NAMES[$i]}}"
    done
  fi
  # More jobs of the case (e.g. blackbox-style /probe scrapes):
  # prometheus-jobs.yml, with @EXPORTER_<VM>@ replaced by that VM's
  # forwarded host:port.
  if [ -f "$CASE_DIR/prometheus-jobs.yml" ]; then
    subst=()
    for i in "${!NAMES[@]}"; do
      subst+=(-e "s/@EXPORTER_${NAMES[$i]^^}@/127.0.0.1:${FWD_PORT[$i]}/g")
    done
    sed "${subst[@]}" "$CASE_DIR/prometheus-jobs.yml"
  fi
} >"$PROM_CFG"
start_prometheus() {
  local n
  for _ in 1 2 3; do
    # RNIC_VM_PROM_PORT: a fixed port (the demo's), else a free one.
    PROM_PORT=${RNIC_VM_PROM_PORT:-$(free_port)}
    PROM_URL=http://127.0.0.1:$PROM_PORT
    prometheus --config.file="$PROM_CFG" --storage.tsdb.path="$PROM_DATA" \
      --web.listen-address="127.0.0.1:$PROM_PORT" \
      >"$RUN/prometheus/prometheus.log" 2>&1 &
    PROM_PID=$!
    n=300
    while kill -0 "$PROM_PID" 2>/dev/null && [ $n -gt 0 ]; do
      if curl -fs -o /dev/null "$PROM_URL/-/ready"; then
        PIDS+=("$PROM_PID")
        log "prometheus pid $PROM_PID on $PROM_URL"
        return 0
      fi
      sleep 0.1
      n=$((n - 1))
    done
    kill "$PROM_PID" 2>/dev/null
    wait "$PROM_PID" 2>/dev/null
    grep -q 'address already in use' "$RUN/prometheus/prometheus.log" || break
  done
  die "prometheus did not start: $(tail -5 "$RUN/prometheus/prometheus.log")"
}
start_prometheus

# --- host side -----------------------------------------------------------------
HOST_CMD=()
if [ -f "$CASE_DIR/host.py" ]; then
  HOST_CMD=(python3 "$CASE_DIR/host.py")
elif [ -f "$CASE_DIR/host.sh" ]; then
  HOST_CMD=(bash "$CASE_DIR/host.sh")
fi
export RNIC_VM_CASE=$CASE RNIC_VM_CASE_DIR=$CASE_DIR RNIC_VM_RUN_DIR=$RUN
export RNIC_VM_SYNC_DIR=$RUN/sync RNIC_VM_PROM_URL=$PROM_URL
export RNIC_VM_EXPORTER_URL=http://127.0.0.1:${FWD_PORT[0]}
export RNIC_VM_NAMES="${NAMES[*]}" RNIC_VM_DEADLINE=$DEADLINE
export RNIC_VM_HOST_LIB=$VM_DIR/host/lib.sh
export PYTHONPATH=$VM_DIR/host${PYTHONPATH:+:$PYTHONPATH}
for i in "${!NAMES[@]}"; do
  export "RNIC_VM_EXPORTER_URL_${NAMES[$i]^^}=http://127.0.0.1:${FWD_PORT[$i]}"
done
for e in $EXPORTERS; do
  n=${e%%:*}; export "RNIC_VM_EXPORTER_URL_${n^^}=http://127.0.0.1:${EXP_FWD[${e%%:*}]}"
done
export RNIC_VM_EXPORTERS="$EXPORTERS"
if [ ${#HOST_CMD[@]} -gt 0 ]; then
  log "host: ${HOST_CMD[*]}"
  # Own process group, so the whole host side can be stopped by its id.
  setsid bash -c '
    cd "$RNIC_VM_CASE_DIR"
    timeout --kill-after=5 "$1" "${@:2}" 2>&1 | tee "$RNIC_VM_RUN_DIR/host.log"
    rc=${PIPESTATUS[0]}
    echo "$rc" >"$RNIC_VM_SYNC_DIR/host-done.tmp"
    mv "$RNIC_VM_SYNC_DIR/host-done.tmp" "$RNIC_VM_SYNC_DIR/host-done"
  ' host "$TIMEOUT" "${HOST_CMD[@]}" &
  HOST_PID=$!
else
  echo 0 >"$RUN/sync/host-done"
fi

# --- wait ------------------------------------------------------------------------
for i in "${!NAMES[@]}"; do
  wait "${VM_PID[$i]}"
  QEMU_RC[$i]=$?
  log "${NAMES[$i]}: qemu exited rc=${QEMU_RC[$i]} after $(elapsed "$T_START") s"
done
if [ -n "$HOST_PID" ]; then
  # The VMs are gone; a host script still waiting for them gets 10 s more,
  # or 1 s when a guest already failed.
  n=100
  for i in "${!NAMES[@]}"; do
    [ "$(cat "$RUN/${NAMES[$i]}/guest-rc" 2>/dev/null)" = 0 ] || n=10
  done
  while [ ! -f "$RUN/sync/host-done" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
  if [ ! -f "$RUN/sync/host-done" ]; then
    log "host script still running after the VMs exited: stopping it"
    kill -TERM -- "-$HOST_PID" 2>/dev/null
    sleep 1
  fi
  wait "$HOST_PID" 2>/dev/null
fi
HOST_RC=$(cat "$RUN/sync/host-done" 2>/dev/null || echo 124)

# --- verdict -------------------------------------------------------------------
RC=0
for i in "${!NAMES[@]}"; do
  name=${NAMES[$i]} dir=$RUN/${NAMES[$i]}
  grc=$(cat "$dir/guest-rc" 2>/dev/null || true)
  if [ "${QEMU_RC[$i]}" = 124 ] || [ "${QEMU_RC[$i]}" = 137 ]; then
    why="timed out after ${TIMEOUT}s (RNIC_VM_TIMEOUT)"
    vrc=124
  elif [ -z "$grc" ]; then
    why="guest never reported (qemu rc ${QEMU_RC[$i]}; see $dir/serial.log, $dir/qemu.log)"
    vrc=99
  elif [ "$grc" = 97 ]; then
    why="guest setup failed (see $dir/serial.log)"
    vrc=97
  else
    why="guest.sh exited $grc"
    vrc=$grc
  fi
  if [ "$vrc" != 0 ] || [ "${RNIC_VM_VERBOSE:-0}" = 1 ]; then
    echo "----- $name: serial.log (last 60 lines) -----" >&2
    tail -n 60 "$dir/serial.log" >&2
    if [ -s "$dir/exporter.log" ]; then
      echo "----- $name: exporter.log (last 20 lines) -----" >&2
      tail -n 20 "$dir/exporter.log" >&2
    fi
  fi
  log "$name: $why"
  [ "$RC" != 0 ] || RC=$vrc
done
[ "$HOST_RC" = 0 ] || log "host script exited $HOST_RC (see $RUN/host.log)"
[ "$RC" != 0 ] || RC=$HOST_RC
# qemu itself killed by a signal (TCG has crashed with SIGSEGV on a loaded
# host) before a guest reported says nothing about the case: run it once more.
CRASHED=
for i in "${!NAMES[@]}"; do
  q=${QEMU_RC[$i]}
  if [ ! -s "$RUN/${NAMES[$i]}/guest-rc" ] && [ "$q" -gt 128 ] && [ "$q" != 137 ]; then
    CRASHED="${NAMES[$i]} (qemu rc $q)"
  fi
done
if [ -n "$CRASHED" ] && [ -z "${RNIC_VM_RETRIED:-}" ]; then
  log "case $CASE: qemu crashed in $CRASHED, not the case failing: running it once more"
  cleanup
  trap - EXIT
  RNIC_VM_RETRIED=1 exec "$0" "$CASE_DIR"
fi
log "case $CASE: $([ "$RC" = 0 ] && echo PASS || echo "FAIL rc=$RC") in $(elapsed "$T_START") s"
exit "$RC"
