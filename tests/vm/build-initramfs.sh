#!/usr/bin/env bash
# Build the guest initramfs (uncompressed cpio, newc): static busybox, the
# Soft-RoCE kernel modules, the RDMA tools and the project's own binaries.
#
# Output: $RNIC_VM_BUILD/initramfs.cpio, rebuilt only when an input changed
# (inputs are listed with size and mtime in initramfs.manifest).
#
#   RNIC_VM_EXPORTER  exporter binary (default <repo>/build/exporter/rnic_exporter);
#                     included when it exists, and the image is rebuilt when it
#                     appears, changes or disappears.
#   RNIC_VM_REQUIRE_EXPORTER=1  fail when the exporter is missing (ctest).
#   RNIC_VM_BINS      more project binaries (space separated), all required.
#   RNIC_VM_FORCE=1   rebuild even if nothing changed.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

RNIC_VM_EXPORTER=${RNIC_VM_EXPORTER:-$REPO_DIR/build/exporter/rnic_exporter}
RNIC_VM_BINS=${RNIC_VM_BINS:-}
OUT=$RNIC_VM_BUILD/initramfs.cpio
MANIFEST=$RNIC_VM_BUILD/initramfs.manifest
ROOT=$RNIC_VM_BUILD/initramfs-root

need_cmd cpio cpio
need_cmd depmod kmod
need_cmd busybox busybox-static
load_kernel_facts || die "no kernel in $RNIC_VM_CACHE: run tests/vm/fetch-kernel.sh first"
MODDIR=$KROOT/lib/modules/$KVER
BUSYBOX=$(command -v busybox)
# The guest has no libc of its own for busybox: it must be the static build.
! ldd "$BUSYBOX" >/dev/null 2>&1 || die "$BUSYBOX is dynamically linked: install busybox-static"

# Host tools copied with their libraries. Every one is required: a missing
# tool means a missing package, and a guest script would fail obscurely.
TOOLS="/usr/bin/rdma /usr/sbin/ip /usr/sbin/tc
  /usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong
  /usr/bin/ibv_ud_pingpong /usr/bin/ibv_asyncwatch
  /usr/bin/ib_write_lat /usr/bin/ib_write_bw /usr/bin/ib_send_lat
  /usr/bin/ib_send_bw /usr/bin/ib_read_lat /usr/bin/ib_read_bw
  /usr/bin/ib_atomic_lat /usr/bin/ib_atomic_bw
  /usr/bin/rping /usr/bin/ucmatose /usr/bin/rdma_server /usr/bin/rdma_client
  /usr/sbin/ethtool"
# dlopen()ed by libibverbs, invisible to ldd.
PROVIDERS=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so 2>/dev/null || true)
[ -n "$PROVIDERS" ] || die "rxe provider missing: install ibverbs-providers"
# Kernel modules; dependencies come from modules.dep. crc32_generic is loaded
# explicitly: rxe asks for "crc32" through request_module (see README).
MODULES="virtio_pci virtio_net dummy 9pnet_virtio 9p udp_tunnel ip6_udp_tunnel
  ib_core ib_uverbs rdma_rxe ib_umad rdma_cm rdma_ucm sch_netem veth bridge"
OPTIONAL_MODULES="crc32_generic"

PROJECT_BINS=$RNIC_VM_BINS
if [ -e "$RNIC_VM_EXPORTER" ]; then
  PROJECT_BINS="$RNIC_VM_EXPORTER $PROJECT_BINS"
elif [ "${RNIC_VM_REQUIRE_EXPORTER:-0}" = 1 ]; then
  die "the exporter $RNIC_VM_EXPORTER is missing: build it first (cmake --build <build dir>)"
fi
for b in $TOOLS $PROJECT_BINS; do
  [ -x "$b" ] || die "missing executable $b (see setup.sh for packages; build the project for its own binaries)"
done

# The shared libraries ldd resolves for some executables.
libs_of() {
  local f
  for f in "$@"; do
    { ldd "$f" 2>/dev/null || true; } | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }'
  done
}
# Copied to the same path in the guest.
# shellcheck disable=SC2086,SC2046 # word lists on purpose
FILES=$(printf '%s\n' $TOOLS $PROVIDERS \
  $(libs_of $TOOLS $PROVIDERS $PROJECT_BINS) | sort -u)

# The manifest names every input; any difference forces a rebuild.
manifest() {
  echo "kernel $KROOT"
  echo "exporter $RNIC_VM_EXPORTER $([ -e "$RNIC_VM_EXPORTER" ] && echo present || echo absent)"
  echo "bins $RNIC_VM_BINS"
  # shellcheck disable=SC2086
  stat -L -c '%n %s %Y' "$0" "$VM_DIR/lib/common.sh" "$VM_DIR"/guest/* "$BUSYBOX" \
    /etc/libibverbs.d/rxe.driver $FILES $PROJECT_BINS
}
NEW_MANIFEST=$(manifest)
if [ "${RNIC_VM_FORCE:-0}" != 1 ] && [ -f "$OUT" ] && [ -f "$MANIFEST" ] &&
  [ "$NEW_MANIFEST" = "$(cat "$MANIFEST")" ]; then
  log "initramfs up to date: $OUT"
  exit 0
fi
if [ -f "$MANIFEST" ]; then
  log "initramfs inputs changed:"
  diff <(cat "$MANIFEST") <(echo "$NEW_MANIFEST") | grep "^[<>]" | head -6 | sed "s/^/    /" >&2 || true
fi
T0=$(now)
rm -rf "$ROOT" "$OUT" "$MANIFEST"
mkdir -p "$ROOT"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,usr/lib/rnicvm} \
  "$ROOT"/{proc,sys,dev,tmp,run,etc/libibverbs.d,root,out,case,var/tmp}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$ROOT/$d"; done

# busybox applets as symlinks; real tools copied afterwards replace them.
cp "$BUSYBOX" "$ROOT/usr/bin/busybox"
for a in $("$BUSYBOX" --list); do
  [ "$a" = busybox ] || ln -sf busybox "$ROOT/usr/bin/$a"
done

for f in $FILES; do
  mkdir -p "$ROOT$(dirname "$f")"
  rm -f "$ROOT$f"
  cp -L "$f" "$ROOT$f"
done
cp /etc/libibverbs.d/rxe.driver "$ROOT/etc/libibverbs.d/"
# Project binaries go to /usr/bin under their own name, without debug info
# (smaller image, faster to load through fw_cfg under TCG).
for b in $PROJECT_BINS; do
  strip --strip-debug -o "$ROOT/usr/bin/$(basename "$b")" "$b" 2>/dev/null ||
    cp "$b" "$ROOT/usr/bin/$(basename "$b")"
done

# Modules in load order: depth-first over modules.dep, dependencies first.
declare -A SEEN=()
ORDER=()
mod_path() { { grep -m1 -E "(^|/)$1\.ko(\.[a-z]+)?:" "$MODDIR/modules.dep" || true; } | cut -d: -f1; }
builtin() { grep -q -E "(^|/)$1\.ko$" "$MODDIR/modules.builtin"; }
visit() {
  local rel=$1 deps
  [ -n "${SEEN[$rel]:-}" ] && return
  SEEN[$rel]=1
  deps=$({ grep -m1 -E "^$rel:" "$MODDIR/modules.dep" || true; } | cut -d: -f2)
  local dep
  # shellcheck disable=SC2086
  for dep in $(printf '%s\n' $deps | tac); do visit "$dep"; done
  ORDER+=("$rel")
}
for m in $MODULES $OPTIONAL_MODULES; do
  rel=$(mod_path "$m")
  if [ -z "$rel" ]; then
    builtin "$m" && continue # newer kernels build some of these in
    case " $OPTIONAL_MODULES " in *" $m "*) continue ;; esac
    die "module $m not in $MODDIR"
  fi
  visit "$rel"
done
GUESTMOD=$ROOT/lib/modules/$KVER
: >"$ROOT/etc/rnicvm-modules"
for rel in "${ORDER[@]}"; do
  dst=$GUESTMOD/${rel%.ko*}.ko
  mkdir -p "$(dirname "$dst")"
  # Newer Debian kernels compress modules; busybox insmod wants plain ELF.
  case $rel in
    *.ko) cp "$MODDIR/$rel" "$dst" ;;
    *.ko.xz) xz -dc "$MODDIR/$rel" >"$dst" ;;
    *.ko.zst) zstd -qdc "$MODDIR/$rel" >"$dst" ;;
    *.ko.gz) gzip -dc "$MODDIR/$rel" >"$dst" ;;
    *) die "unknown module format: $rel" ;;
  esac
  echo "${rel%.ko*}.ko" >>"$ROOT/etc/rnicvm-modules"
done
cp "$MODDIR"/modules.{order,builtin,builtin.modinfo} "$GUESTMOD/" 2>/dev/null || true
depmod -b "$ROOT" "$KVER" # busybox modprobe and request_module() use it
echo "$KVER" >"$ROOT/etc/rnicvm-kver"

echo 'root:x:0:0:root:/root:/bin/sh' >"$ROOT/etc/passwd"
echo 'root:x:0:' >"$ROOT/etc/group"
printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"
install -m 755 "$VM_DIR/guest/init" "$ROOT/init"
install -m 644 "$VM_DIR/guest/lib.sh" "$ROOT/usr/lib/rnicvm/lib.sh"

(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$NEW_MANIFEST" >"$MANIFEST"
log "initramfs: $OUT ($(du -h "$OUT" | cut -f1), $(elapsed "$T0") s); modules: ${ORDER[*]##*/}"
log "project binaries: ${PROJECT_BINS:-none}"
