# Helpers for the netlink case (busybox sh): read samples out of a saved
# /metrics page and compare numbers.

# value FILE NAME [LABEL=VALUE ...]: the value of the first sample of family
# NAME carrying every given label, or nothing when there is none.
value() {
  _f=$1 _n=$2
  shift 2
  awk -v n="$_n" -v want="$*" '
    BEGIN { k = split(want, w, " ") }
    index($0, n "{") == 1 || index($0, n " ") == 1 {
      ok = 1
      for (i = 1; i <= k; i++) {
        split(w[i], kv, "=")
        if (index($0, kv[1] "=\"" kv[2] "\"") == 0) ok = 0
      }
      if (ok) { print $NF; exit }
    }' "$_f"
}

# same A B: numeric equality (exposition may print 1e+06 for 1000000).
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 == b + 0) }'; }

# expect_value FILE NAME WANT LABELS...: fail unless the sample equals WANT.
expect_value() {
  _f=$1 _n=$2 _want=$3
  shift 3
  _got=$(value "$_f" "$_n" "$@")
  same "$_got" "$_want" || fail "$_n{$*} = '${_got}', want $_want ($_f)"
}

# family_count FILE NAME: number of "# TYPE NAME" lines (must be 1: no family
# is exported twice, e.g. by sysfs and netlink both).
family_count() { grep -c "^# TYPE $2 " "$1"; }

# holder_field FILE KEY: KEY=VALUE line printed by rnic_res_holder.
holder_field() { sed -n "s/^$2=//p" "$1"; }
