#!/usr/bin/env bash
# Every exporter flag the packaging passes (systemd ARGS, Dockerfile CMD,
# DaemonSet args, Helm template) is one `rnic_exporter --help` knows.
#   test_flags_known.sh <repo> <rnic_exporter>
# A --[no-]collector.<name> flag of a collector not compiled into this build
# (e.g. on a branch before a collector is merged) makes the test skip (77),
# an unknown flag of any other kind fails it.
set -euo pipefail
repo=${1:?repo}
bin=${2:?exporter binary}
help=$("$bin" --help 2>&1)
files=(packaging/systemd/rnic-exporter.default packaging/docker/Dockerfile
  packaging/kubernetes/daemonset.yaml
  packaging/helm/rnic-exporter/templates/daemonset.yaml)
status=0
skipped=()
while read -r flag; do
  name=${flag#--}
  name=${name%%=*}
  base=${name#no-}
  if grep -qE -- "--(\[no-\])?${base//./\\.}([= ]|$)" <<<"$help"; then
    continue
  fi
  if [[ $base == collector.* ]]; then
    skipped+=("$flag")
  else
    echo "unknown flag $flag"
    status=1
  fi
done < <(cd "$repo" && grep -ohE -- '--[a-z][a-z0-9.-]*[a-z0-9](=[^ "]*)?' "${files[@]}" |
  grep -E -- '^--(web|path|config|log|collector|no-collector)\.' | sort -u)
[ $status = 0 ] || exit 1
if [ ${#skipped[@]} -gt 0 ]; then
  echo "SKIP: collectors not in this build: ${skipped[*]}"
  exit 77
fi
echo "flags: all known"
