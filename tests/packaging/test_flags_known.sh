#!/usr/bin/env bash
# Every exporter flag the packaging passes (systemd ARGS, Dockerfile CMD,
# DaemonSet args, Helm template) is one `rnic_exporter --help` knows.
#   test_flags_known.sh <repo> <rnic_exporter>
# Any unknown flag fails it, a collector flag included: every collector is
# compiled into every build.
set -euo pipefail
repo=${1:?repo}
bin=${2:?exporter binary}
help=$("$bin" --help 2>&1)
files=(packaging/systemd/rnic-exporter.default packaging/docker/Dockerfile
  packaging/kubernetes/daemonset.yaml
  packaging/helm/rnic-exporter/templates/daemonset.yaml)
status=0
while read -r flag; do
  name=${flag#--}
  name=${name%%=*}
  base=${name#no-}
  if ! grep -qE -- "--(\[no-\])?${base//./\\.}([= ]|$)" <<<"$help"; then
    echo "unknown flag $flag"
    status=1
  fi
done < <(cd "$repo" && grep -ohE -- '--[a-z][a-z0-9.-]*[a-z0-9](=[^ "]*)?' "${files[@]}" |
  grep -E -- '^--(web|path|config|log|collector|no-collector)\.' | sort -u)
[ $status = 0 ] || exit 1
echo "flags: all known"
