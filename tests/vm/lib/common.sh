# Shared helpers for the tests/vm host scripts (sourced, bash only).

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$VM_DIR/../.." && pwd)
# Kernel and .deb cache: shared by every build dir and worktree on the machine.
RNIC_VM_CACHE=${RNIC_VM_CACHE:-/var/tmp/rnic_exporter-vm}
# Per-build outputs (initramfs, run logs). CMake passes its binary dir.
RNIC_VM_BUILD=${RNIC_VM_BUILD:-$REPO_DIR/build/tests/vm}

log() { printf '[vm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  printf '[vm] ERROR: %s\n' "$*" >&2
  exit "${DIE_RC:-2}"
}

# need_cmd CMD PACKAGE: fail with the Debian package to install.
need_cmd() {
  command -v "$1" >/dev/null 2>&1 ||
    die "'$1' not found: install Debian package '$2' (see setup.sh)"
}

# free_port: a TCP port on 127.0.0.1 that nobody listens on right now. The
# kernel picks it (port 0), so parallel harness runs rarely collide; callers
# still retry when the bind later fails.
free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# Seconds since the epoch with a fraction, for timing lines.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The kernel unpacked by fetch-kernel.sh; sets KROOT and KVER.
load_kernel_facts() {
  local cur=$RNIC_VM_CACHE/kernel/current
  [ -f "$cur/.complete" ] || return 1
  KROOT=$(cd "$cur" && pwd -P)
  KVER=$(cat "$KROOT/KVER")
  [ -f "$KROOT/boot/vmlinuz-$KVER" ] || return 1
}
