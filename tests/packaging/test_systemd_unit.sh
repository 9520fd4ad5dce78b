#!/usr/bin/env bash
# systemd-analyze verify and security on packaging/systemd/rnic-exporter.service,
# alone and with the optics drop-in packaging/systemd/optics.conf.
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

# Effective capability set of one list setting (AmbientCapabilities=,
# CapabilityBoundingSet=) over the unit and its drop-ins in load order:
# lines merge, an empty assignment resets, a leading ~ inverts (not used by
# the unit; refused here rather than mis-read).
effective_caps() {
  local key=$1
  shift
  awk -v key="$key" '
    index($0, key "=") == 1 {
      v = substr($0, length(key) + 2)
      if (v ~ /^~/) { print "INVERTED"; exit }
      if (v == "") { split("", set); next }
      n = split(v, caps, /[ \t]+/)
      for (i = 1; i <= n; i++) if (caps[i] != "") set[caps[i]] = 1
    }
    END { for (c in set) print c }' "$@" | sort
}
# security --offline parses the unit (and drop-ins) with systemd's own code:
# the marks it gives one check, e.g. "CapabilityBoundingSet=~CAP_NET_ADMIN".
mark() { awk -v k="$1" '$2 == k { print $1 }' <<<"$2"; }

# The unit alone: no CAP_NET_ADMIN anywhere (least privilege by default).
for key in AmbientCapabilities CapabilityBoundingSet; do
  if effective_caps "$key" "$unit" | grep -qx CAP_NET_ADMIN; then
    echo "the unit itself grants CAP_NET_ADMIN in $key= (the optics drop-in is the opt-in)"
    exit 1
  fi
done
[ "$(mark 'CapabilityBoundingSet=~CAP_NET_ADMIN' "$sec")" = "✓" ] || {
  echo "systemd sees CAP_NET_ADMIN in the unit's bounding set"
  exit 1
}

# With the drop-in where systemd looks for it: verify still passes, systemd
# reads it without warnings, CAP_NET_ADMIN is in both sets, the unit's own
# capabilities survive, every ambient capability is in the bounding set, and
# AF_NETLINK (the ethtool genetlink socket) stays allowed.
dropin_dir="$tmp/rnic-exporter.service.d"
mkdir "$dropin_dir"
cp "$repo/packaging/systemd/optics.conf" "$dropin_dir/"
if ! out=$(systemd-analyze verify "$unit" 2>&1) || grep -F "rnic-exporter.service" <<<"$out"; then
  echo "systemd-analyze verify with optics.conf failed:"
  echo "$out"
  exit 1
fi
sec_optics=$(systemd-analyze security --offline=yes "$unit" 2>&1 || true)
if grep -F "optics.conf" <<<"$sec_optics"; then
  echo "systemd reported problems in optics.conf"
  exit 1
fi
[ "$(mark 'CapabilityBoundingSet=~CAP_NET_ADMIN' "$sec_optics")" = "✗" ] || {
  echo "systemd does not see CAP_NET_ADMIN in the bounding set with optics.conf:"
  grep "CapabilityBoundingSet=~CAP_NET_ADMIN" <<<"$sec_optics" || echo "(no such check)"
  exit 1
}
[ "$(mark 'RestrictAddressFamilies=~AF_NETLINK' "$sec_optics")" = "✗" ] || {
  echo "AF_NETLINK is not allowed with optics.conf: no ethtool netlink"
  exit 1
}
ambient=$(effective_caps AmbientCapabilities "$unit" "$dropin_dir/optics.conf")
bounding=$(effective_caps CapabilityBoundingSet "$unit" "$dropin_dir/optics.conf")
for cap in CAP_NET_ADMIN CAP_SYSLOG CAP_PERFMON; do
  grep -qx "$cap" <<<"$ambient" || {
    echo "with optics.conf, AmbientCapabilities lacks $cap: $(tr "\n" " " <<<"$ambient")"
    exit 1
  }
done
missing=$(comm -23 <(echo "$ambient") <(echo "$bounding"))
[ -z "$missing" ] || {
  echo "ambient capabilities outside the bounding set with optics.conf: $missing"
  exit 1
}
echo "optics drop-in: OK (ambient: $(tr "\n" " " <<<"$ambient"))"
