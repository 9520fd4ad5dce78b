#!/usr/bin/env bash
# Changes rnic_exporter's default port everywhere packaging spells it out:
#   packaging/set-port.sh 9709
# Edits packaging/port.env and every file listed in packaging/port-files.txt.
# The compiled-in default lives in exporter/flags.h (kDefaultPort): change it
# there too, or the packaged flags and the binary's default differ.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
new=${1:?usage: set-port.sh PORT}
if ! [[ $new =~ ^[0-9]+$ ]] || ((new < 1 || new > 65535)); then
  echo "not a port: $new" >&2
  exit 2
fi
# shellcheck source=port.env
. "$here/port.env"
old=$RNIC_EXPORTER_PORT
[ "$old" = "$new" ] && exit 0
while read -r f; do
  case $f in '' | '#'*) continue ;; esac
  sed -i -E "s/(^|[^0-9])${old}([^0-9]|$)/\1${new}\2/g" "$repo/$f"
done <"$here/port-files.txt"
sed -i "s/^RNIC_EXPORTER_PORT=.*/RNIC_EXPORTER_PORT=${new}/" "$here/port.env"
echo "default port: $old -> $new (now check exporter/flags.h kDefaultPort)"
