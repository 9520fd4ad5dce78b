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
dpkg-deb -f "$deb" Depends | grep -q libibverbs1 || {
  echo "Depends lacks libibverbs1: $(dpkg-deb -f "$deb" Depends)"
  exit 1
}
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
