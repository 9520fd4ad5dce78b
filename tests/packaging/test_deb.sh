#!/usr/bin/env bash
# Builds the .deb and checks its contents and metadata (slow: a full build).
#   test_deb.sh <repo>
set -euo pipefail
repo=${1:?repo}
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
  echo "SKIP: dpkg-buildpackage/debhelper not installed"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$repo/packaging/build-deb.sh" "$out" >"$out/build.log" 2>&1 || {
  tail -50 "$out/build.log"
  exit 1
}
deb=$(ls "$out"/rnic-exporter_*.deb)
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/rnic_exporter ./lib/systemd/system/rnic-exporter.service \
  ./etc/default/rnic-exporter ./usr/share/rnic-exporter/rules/rnic_alerts.yaml \
  ./usr/share/rnic-exporter/rules/rnic_rules.yaml \
  ./usr/share/rnic-exporter/dashboards/rnic-overview.json; do
  grep -qF " $path" <<<"$contents" || {
    echo "missing $path in $deb"
    exit 1
  }
done
# Every shared library the binary needs comes with a dependency: map each
# NEEDED soname to its installed package and look for it in Depends.
depends=$(dpkg-deb -f "$deb" Depends)
dpkg-deb -x "$deb" "$out/root"
while read -r soname; do
  lib=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
  [ -n "$lib" ] || continue
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || continue
  grep -qE "(^|, )${pkg}( |,|$)" <<<"$depends" || {
    echo "binary needs $soname ($pkg) but Depends is: $depends"
    exit 1
  }
done < <(objdump -p "$out/root/usr/bin/rnic_exporter" | awk '/NEEDED/ { print $2 }')
dpkg-deb -e "$deb" "$out/control"
grep -q "/etc/default/rnic-exporter" "$out/control/conffiles" || {
  echo "/etc/default/rnic-exporter is not a conffile"
  exit 1
}
grep -q "deb-systemd-helper" "$out/control/postinst" || {
  echo "postinst does not enable the unit"
  exit 1
}
if command -v lintian >/dev/null; then
  lintian --fail-on error "$deb"
fi
echo "deb: OK ($(basename "$deb"), $(du -h "$deb" | cut -f1))"
