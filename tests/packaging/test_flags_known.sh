#!/usr/bin/env bash
# Every exporter flag the packaging passes (systemd ARGS, Dockerfile CMD,
# DaemonSet args, Helm template) is one `rnic_exporter --help` knows.
#   test_flags_known.sh <repo> <rnic_exporter>
# Any unknown flag fails it, a collector flag included: every collector is
# compiled into every build. A file that is missing or passes no flag fails
# it too: a moved file must not turn the check into a pass with nothing read.
set -euo pipefail
repo=${1:?repo}
bin=${2:?exporter binary}
help=$("$bin" --help 2>&1)
files=(packaging/systemd/rnic-exporter.default packaging/docker/Dockerfile
  packaging/kubernetes/daemonset.yaml
  packaging/helm/rnic-exporter/templates/daemonset.yaml)
flag_re='^--(web|path|config|log|collector|no-collector)\.'
status=0
all=()
for f in "${files[@]}"; do
  if [ ! -f "$repo/$f" ]; then
    echo "missing $f"
    status=1
    continue
  fi
  mapfile -t found < <(grep -ohE -- '--[a-z][a-z0-9.-]*[a-z0-9](=[^ "]*)?' \
    "$repo/$f" | grep -E -- "$flag_re" || true)
  if [ ${#found[@]} = 0 ]; then
    echo "no exporter flag found in $f"
    status=1
  fi
  all+=("${found[@]}")
done
checked=0
while read -r flag; do
  [ -n "$flag" ] || continue
  name=${flag#--}
  name=${name%%=*}
  base=${name#no-}
  checked=$((checked + 1))
  if ! grep -qE -- "--(\[no-\])?${base//./\\.}([= ]|$)" <<<"$help"; then
    echo "unknown flag $flag"
    status=1
  fi
done < <(printf '%s\n' "${all[@]}" | sort -u)
[ $status = 0 ] || exit 1
echo "flags: all $checked known"
