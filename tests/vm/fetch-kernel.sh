#!/usr/bin/env bash
# Fetch Debian's packaged kernel for the Soft-RoCE VM into the cache
# ($RNIC_VM_CACHE, default /var/tmp/rnic_exporter-vm) without installing it:
# apt-get download, dpkg -x, depmod -b. Reuses a complete cached copy.
#
#   RNIC_VM_KERNEL_PKG  exact package to use (overrides everything below)
#   RNIC_VM_KERNEL_ABI  preferred ABI (default 6.1.0-57-amd64, the one the
#                       harness was measured with); when apt no longer offers
#                       it and it is not cached, the newest
#                       linux-image-<ver>-amd64-unsigned apt knows is used.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

RNIC_VM_KERNEL_ABI=${RNIC_VM_KERNEL_ABI:-6.1.0-57-amd64}
# Modules the harness cannot work without (crc32 is optional: newer kernels
# build it in).
REQUIRED_MODULES="rdma_rxe ib_core ib_uverbs rdma_cm rdma_ucm virtio_net
  virtio_pci dummy sch_netem 9p 9pnet_virtio"

need_cmd apt-get apt
need_cmd dpkg dpkg
need_cmd depmod kmod

mkdir -p "$RNIC_VM_CACHE/kernel" "$RNIC_VM_CACHE/debs"
exec 9>"$RNIC_VM_CACHE/.kernel.lock"
flock 9

apt_has() { apt-cache show --no-all-versions "$1" >/dev/null 2>&1; }
cached_dir_for() { # newest complete, intact unpack of package $1, if any
  local d best='' kver
  for d in "$RNIC_VM_CACHE/kernel/$1"_*; do
    [ -f "$d/.complete" ] || continue
    kver=$(cat "$d/KVER" 2>/dev/null) || continue
    [ -f "$d/boot/vmlinuz-$kver" ] && [ -f "$d/lib/modules/$kver/modules.dep" ] && best=$d
  done
  printf '%s' "$best"
}

pick_package() {
  if [ -n "${RNIC_VM_KERNEL_PKG:-}" ]; then
    echo "$RNIC_VM_KERNEL_PKG"
    return
  fi
  local pinned="linux-image-$RNIC_VM_KERNEL_ABI-unsigned"
  if [ -n "$(cached_dir_for "$pinned")" ] || apt_has "$pinned"; then
    echo "$pinned"
    return
  fi
  # Plain flavour only: -cloud lacks many drivers, -rt changes timing.
  local newest
  newest=$(apt-cache pkgnames linux-image- |
    grep -E '^linux-image-[0-9][^ ]*-amd64-unsigned$' |
    grep -v -E -- '-(cloud|rt)-amd64' | sort -V | tail -1)
  [ -n "$newest" ] || die "no linux-image-*-amd64-unsigned package known to apt; run 'apt-get update' (needs the Debian archive)"
  log "pinned $pinned is not offered by apt any more; using the newest: $newest"
  echo "$newest"
}

PKG=$(pick_package)
DIR=$(cached_dir_for "$PKG")
if [ -z "$DIR" ]; then
  apt_has "$PKG" || die "apt does not know $PKG (try 'apt-get update' or set RNIC_VM_KERNEL_PKG)"
  VERSION=$(apt-cache show --no-all-versions "$PKG" | awk '/^Version:/ { print $2; exit }')
  DEB=$(ls "$RNIC_VM_CACHE/debs/${PKG}_"*.deb 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$DEB" ]; then
    SIZE=$(apt-cache show --no-all-versions "$PKG" | awk '/^Size:/ { printf "%d", $2 / 1048576; exit }')
    log "downloading $PKG $VERSION (${SIZE} MiB) into $RNIC_VM_CACHE/debs"
    # As root apt would hand the download to user _apt, who cannot write here.
    SANDBOX=()
    [ "$(id -u)" = 0 ] && SANDBOX=(-o APT::Sandbox::User=root)
    (cd "$RNIC_VM_CACHE/debs" && apt-get download -q "${SANDBOX[@]}" "$PKG") ||
      die "apt-get download $PKG failed (network or apt sources?)"
    DEB=$(ls "$RNIC_VM_CACHE/debs/${PKG}_"*.deb | sort -V | tail -1)
  fi
  VERSION=$(dpkg-deb -f "$DEB" Version)
  DIR=$RNIC_VM_CACHE/kernel/${PKG}_${VERSION//:/%}
  TMP=$DIR.tmp.$$
  rm -rf "$TMP"
  log "unpacking $(basename "$DEB")"
  dpkg -x "$DEB" "$TMP"
  KVER=$(ls "$TMP/lib/modules")
  [ "$(echo "$KVER" | wc -w)" = 1 ] || die "expected one module tree in $DEB, got: $KVER"
  depmod -b "$TMP" "$KVER" # the .deb ships no modules.dep
  for m in $REQUIRED_MODULES; do
    grep -q -E "(^|/)$m\.ko(\.[a-z]+)?:" "$TMP/lib/modules/$KVER/modules.dep" ||
      grep -q -E "/$m\.ko" "$TMP/lib/modules/$KVER/modules.builtin" ||
      die "$PKG has no module $m"
  done
  echo "$KVER" >"$TMP/KVER"
  echo "$PKG $VERSION" >"$TMP/PACKAGE"
  touch "$TMP/.complete"
  rm -rf "$DIR"
  mv "$TMP" "$DIR"
fi
ln -sfn "$(basename "$DIR")" "$RNIC_VM_CACHE/kernel/current.new"
mv -T "$RNIC_VM_CACHE/kernel/current.new" "$RNIC_VM_CACHE/kernel/current"
log "kernel: $(cat "$DIR/PACKAGE") ($(cat "$DIR/KVER")) in $DIR"
