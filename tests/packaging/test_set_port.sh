#!/usr/bin/env bash
# set-port.sh and check-port.sh agree: in a scratch copy, move the default
# port, check every file follows and the old port is gone from them.
set -euo pipefail
repo=${1:?repo}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$repo/packaging" "$tmp/packaging"
# shellcheck source=/dev/null
. "$repo/packaging/port.env"
old=$RNIC_EXPORTER_PORT
new=$((old == 12345 ? 12346 : 12345))
"$tmp/packaging/set-port.sh" "$new"
"$tmp/packaging/check-port.sh"
while read -r f; do
  case $f in '' | '#'*) continue ;; esac
  if grep -q "\b${old}\b" "$tmp/$f"; then
    echo "$f still mentions $old after set-port.sh $new"
    exit 1
  fi
done <"$tmp/packaging/port-files.txt"
# A file that disagrees is caught.
sed -i "s/containerPort: ${new}/containerPort: 9999/" \
  "$tmp/packaging/kubernetes/daemonset.yaml"
if "$tmp/packaging/check-port.sh" >/dev/null; then
  echo "check-port.sh missed a wrong containerPort"
  exit 1
fi
echo "set-port/check-port: OK ($old -> $new)"
