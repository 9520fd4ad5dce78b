#!/usr/bin/env bash
# systemd-analyze verify and security on packaging/systemd/rnic-exporter.service.
#   test_systemd_unit.sh <repo> [exporter-binary] [max-exposure]
# verify checks that ExecStart= exists, so a copy of the unit points at the
# built binary (or /bin/true when there is none).
set -euo pipefail
repo=${1:?repo}
bin=${2:-}
max=${3:-3.0}
command -v systemd-analyze >/dev/null || {
  echo "FAIL: systemd-analyze not installed"
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unit="$tmp/rnic-exporter.service"
if [ -n "$bin" ] && [ -x "$bin" ]; then bin=$(readlink -f "$bin"); else bin=/bin/true; fi
sed "s#/usr/bin/rnic_exporter#$bin#" \
  "$repo/packaging/systemd/rnic-exporter.service" >"$unit"

cd "$tmp"
if ! out=$(systemd-analyze verify "$unit" 2>&1); then
  echo "systemd-analyze verify failed:"
  echo "$out"
  exit 1
fi
# Warnings about this unit (unknown settings, bad values) fail too.
if grep -F "rnic-exporter.service" <<<"$out"; then
  echo "systemd-analyze verify reported problems"
  exit 1
fi
echo "verify: OK"

sec=$(systemd-analyze security --offline=yes "$unit" 2>&1 || true)
level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$sec")
if [ -z "$level" ]; then
  echo "no exposure level in:"
  echo "$sec"
  exit 1
fi
echo "security: exposure $level (limit $max)"
awk -v l="$level" -v m="$max" 'BEGIN { exit !(l <= m) }' || {
  echo "exposure $level above $max:"
  grep "✗" <<<"$sec" || true
  exit 1
}
