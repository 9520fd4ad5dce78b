#!/usr/bin/env bash
# Builds the .deb and checks its contents and metadata (slow: a full build).
#   test_deb.sh <repo>
# RNIC_DEB=<path to .deb> checks an existing package instead of building.
set -euo pipefail
repo=${1:?repo}
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
  echo "FAIL: dpkg-buildpackage/debhelper not installed (run ./setup.sh)"
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ -n "${RNIC_DEB:-}" ]; then
  deb=$RNIC_DEB
else
  "$repo/packaging/build-deb.sh" "$out" >"$out/build.log" 2>&1 || {
    tail -50 "$out/build.log"
    exit 1
  }
  deb=$(ls "$out"/rnic-exporter_*.deb)
fi
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/rnic_exporter ./lib/systemd/system/rnic-exporter.service \
  ./etc/default/rnic-exporter ./usr/share/rnic-exporter/rules/rnic_alerts.yaml \
  ./usr/share/rnic-exporter/rules/rnic_rules.yaml \
  ./usr/share/rnic-exporter/dashboards/rnic-overview.json \
  ./usr/share/doc/rnic-exporter/examples/rnic_exporter.yml \
  ./usr/share/doc/rnic-exporter/examples/web-config.yml \
  ./usr/share/doc/rnic-exporter/examples/optics.conf; do
  grep -qF " $path" <<<"$contents" || {
    echo "missing $path in $deb"
    exit 1
  }
done
# Every shared library the binary needs comes with a dependency: map each
# NEEDED soname to its installed package and look for it in Depends.
depends=$(dpkg-deb -f "$deb" Depends)
# One package name per line (versions and alternatives' bars dropped).
dep_names=$(sed 's/([^)]*)//g; s/|/,/g' <<<"$depends" | tr ',' '\n' | awk '{print $1}')
dpkg-deb -x "$deb" "$out/root"
while read -r soname; do
  # (no early exit in the readers: with pipefail a SIGPIPE would fail us)
  lib=$(ldconfig -p | awk -v s="$soname" '$1 == s && !n { print $NF; n = 1 }')
  [ -n "$lib" ] || continue
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | sed -n '1s/:.*//p' || true)
  [ -n "$pkg" ] || continue
  # The dependency may name the package or a virtual package it Provides
  # (libspdlog1.10 provides libspdlog1.10-fmt9).
  names="$pkg $(dpkg-query -W -f='${Provides}' "$pkg" 2>/dev/null |
    sed 's/([^)]*)//g; s/,/ /g')"
  found=0
  for n in $names; do
    if grep -qxF "$n" <<<"$dep_names"; then found=1; fi
  done
  if [ $found = 0 ]; then
    echo "binary needs $soname ($pkg) but Depends is: $depends"
    exit 1
  fi
done < <(objdump -p "$out/root/usr/bin/rnic_exporter" | awk '/NEEDED/ { print $2 }')
dpkg-deb -e "$deb" "$out/control"
grep -q "/etc/default/rnic-exporter" "$out/control/conffiles" || {
  echo "/etc/default/rnic-exporter is not a conffile"
  exit 1
}
# The optics drop-in is an example only: no installed unit or drop-in grants
# CAP_NET_ADMIN, and the example is the one the unit test checks.
if grep -rE '^(AmbientCapabilities|CapabilityBoundingSet)=.*CAP_NET_ADMIN' \
  "$out/root/lib/systemd" "$out/root/etc"; then
  echo "the package grants CAP_NET_ADMIN (optics.conf is an opt-in example)"
  exit 1
fi
cmp "$out/root/usr/share/doc/rnic-exporter/examples/optics.conf" \
  "$repo/packaging/systemd/optics.conf" || {
  echo "the packaged optics.conf differs from packaging/systemd/optics.conf"
  exit 1
}
grep -q "deb-systemd-helper" "$out/control/postinst" || {
  echo "postinst does not enable the unit"
  exit 1
}
if command -v lintian >/dev/null; then
  lintian --fail-on error "$deb"
fi

# The installed package runs: install it (root: dpkg -i, purged again at the
# end; otherwise the extracted tree), start the installed binary with the
# installed example config on 127.0.0.1, and scrape it. Its build_info names
# the revision the package version carries.
pkg_version=$(dpkg-deb -f "$deb" Version)
want_rev=${pkg_version##*+git}
root=$out/root
if [ "$(id -u)" = 0 ] && ! dpkg-query -W rnic-exporter >/dev/null 2>&1; then
  trap 'dpkg --purge rnic-exporter >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
  DPKG_FORCE=confdef dpkg -i "$deb" >"$out/install.log" 2>&1 || {
    cat "$out/install.log"
    exit 1
  }
  root=
fi
bin=$root/usr/bin/rnic_exporter
cfg=$root/usr/share/doc/rnic-exporter/examples/rnic_exporter.yml
[ -f "$cfg" ] || cfg=$cfg.gz
if [ "${cfg%.gz}" != "$cfg" ]; then
  gunzip -c "$cfg" >"$out/rnic_exporter.yml"
  cfg=$out/rnic_exporter.yml
fi
version=$("$bin" --version)
grep -qF "$want_rev" <<<"$version" || {
  echo "installed binary: '$("$bin" --version)' does not name revision $want_rev"
  exit 1
}
"$bin" --web.listen-address=127.0.0.1:0 --config.file="$cfg" \
  --collector.probe --collector.perf >"$out/run.log" 2>&1 &
pid=$!
addr=
for _ in $(seq 100); do
  addr=$(sed -n '/address=/{s/.*address=\([0-9.]*:[0-9]*\).*/\1/p;q}' "$out/run.log")
  [ -n "$addr" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
[ -n "$addr" ] || {
  cat "$out/run.log"
  echo "the installed exporter did not start with the installed example config"
  exit 1
}
curl -sf "http://$addr/metrics" >"$out/metrics.txt" || {
  kill $pid
  echo "scrape of the installed exporter failed"
  exit 1
}
# SIGTERM: in-flight scrapes finish and the exporter exits 0; a crash on
# the way out (a signal, an abort in a destructor) fails the test.
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc = 0 ] || {
  cat "$out/run.log"
  echo "the installed exporter exited $rc on SIGTERM, not 0"
  exit 1
}
grep -q "msg=\"stopped\"" "$out/run.log" || {
  cat "$out/run.log"
  echo "the installed exporter did not log its stop"
  exit 1
}
grep -q "^rnic_build_info{.*revision=\"$want_rev\"" "$out/metrics.txt" || {
  grep rnic_build_info "$out/metrics.txt"
  echo "rnic_build_info does not carry revision $want_rev"
  exit 1
}
grep -q '^rnic_scrape_collector_success{collector="probe"}' "$out/metrics.txt" || {
  echo "the example config's probe collector is not in the scrape"
  exit 1
}
echo "deb: OK ($(basename "$deb"), $(du -h "$deb" | cut -f1))"
