# Reference work for scaling emulated CPU figures to this host's: the same
# static busybox runs it in the guest and on the host
# (`busybox sh tests/bench/vm_fabric_cpu/reference.sh`), so the ratio of
# the two is what the emulation costs on work of that kind. Prints
# "syscall_us=... sha_ms=...": CPU per read or write system call of one byte
# (dd, 2 x N calls) and per 4 MiB hashed (sha256sum).
busybox=${BUSYBOX:-busybox}
N=${REF_CALLS:-50000}
tmp=${TMPDIR:-/tmp}/ref4m.$$
# `times` in this shell (a command substitution would report its own
# subshell's children): children's user and system time.
child_cpu() {
  times >"$tmp.t"
  awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp.t"
}
child_cpu >"$tmp.0"
$busybox dd if=/dev/zero of=/dev/null bs=1 count="$N" 2>/dev/null
child_cpu >"$tmp.1"
$busybox dd if=/dev/zero of="$tmp" bs=1048576 count=4 2>/dev/null
child_cpu >"$tmp.2"
for _ in 1 2 3 4 5 6 7 8; do $busybox sha256sum "$tmp" >/dev/null; done
child_cpu >"$tmp.3"
read -r c0 <"$tmp.0"; read -r c1 <"$tmp.1"; read -r c2 <"$tmp.2"; read -r c3 <"$tmp.3"
rm -f "$tmp" "$tmp".[0-3t]
awk -v a="$c0" -v b="$c1" -v c="$c2" -v d="$c3" -v n="$N" 'BEGIN {
  printf "syscall_us=%.3f sha_ms=%.2f\n", (b - a) / (2 * n) * 1e6, (d - c) / 8 * 1e3 }'
