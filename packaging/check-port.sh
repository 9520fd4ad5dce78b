#!/usr/bin/env bash
# Every packaging file spells the default port of packaging/port.env, and
# none spells another 4-5 digit port where the default belongs.
# Exit 1 on a mismatch. The binary's compiled default (exporter/flags.h
# kDefaultPort) is compared too: a difference is an error (RNIC_STRICT_PORT=0
# makes it a warning while the two are being changed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source=port.env
. "$here/port.env"
port=$RNIC_EXPORTER_PORT
status=0
while read -r f; do
  case $f in '' | '#'*) continue ;; esac
  if ! grep -q "\b${port}\b" "$repo/$f"; then
    echo "$f: does not mention port $port"
    status=1
  fi
  # listen addresses, container/service ports and EXPOSE must use it
  bad=$(grep -nE '(listen-address=[^ "]*:|containerPort: |^ *port: |EXPOSE |RNIC_EXPORTER_PORT=|prometheus.io/port: ")[0-9]{4,5}' "$repo/$f" |
    grep -v "\b${port}\b" || true)
  if [ -n "$bad" ]; then
    echo "$f: another port where the default belongs:"
    echo "$bad"
    status=1
  fi
done <"$here/port-files.txt"
flags="$repo/exporter/flags.h"
if [ -f "$flags" ]; then
  compiled=$(sed -n 's/.*kDefaultPort *= *\([0-9]*\).*/\1/p' "$flags")
  if [ -n "$compiled" ] && [ "$compiled" != "$port" ]; then
    echo "WARNING: exporter/flags.h kDefaultPort=$compiled, packaging uses $port"
    [ "${RNIC_STRICT_PORT:-1}" = 1 ] && status=1
  fi
fi
[ $status = 0 ] && echo "check-port: all packaging files use port $port"
exit $status
