# Host-side helpers for shell cases (tests/vm/cases/*/host.sh), curl + jq.
# run-case.sh exports RNIC_VM_HOST_LIB pointing here:  . "$RNIC_VM_HOST_LIB"

hlog() { echo "host[$(date +%H:%M:%S)]: $*"; }
hfail() {
  hlog "FAIL: $*"
  exit 1
}

# signal_guest NAME / wait_guest NAME [SECONDS]: markers in the shared sync dir.
signal_guest() {
  printf '%s' "${2:-}" >"$RNIC_VM_SYNC_DIR/$1.tmp" && mv "$RNIC_VM_SYNC_DIR/$1.tmp" "$RNIC_VM_SYNC_DIR/$1"
}
wait_guest() {
  local n=$((${2:-120} * 5))
  until [ -e "$RNIC_VM_SYNC_DIR/$1" ]; do
    n=$((n - 1))
    [ $n -gt 0 ] || hfail "guest never signalled '$1'"
    sleep 0.2
  done
}

# prom_query EXPR: one line per series, "<labels as JSON> <value>".
prom_query() {
  curl -fsS -G "$RNIC_VM_PROM_URL/api/v1/query" --data-urlencode "query=$1" |
    jq -r '.data.result[] | "\(.metric | tojson) \(.value[1])"'
}
# prom_value EXPR: the value of a single-series result (empty if none).
prom_value() { prom_query "$1" | awk 'NR == 1 { print $NF }'; }
# prom_wait EXPR [SECONDS]: wait until EXPR returns at least one series
# (use a comparison in EXPR for value conditions, e.g. 'x > 5').
prom_wait() {
  local n=$((${2:-30} * 2))
  until [ -n "$(prom_query "$1")" ]; do
    n=$((n - 1))
    [ $n -gt 0 ] || hfail "timed out waiting for: $1"
    sleep 0.5
  done
}
# prom_alerts: active alerts, one "<alertname> <state>" line each.
prom_alerts() {
  curl -fsS "$RNIC_VM_PROM_URL/api/v1/alerts" |
    jq -r '.data.alerts[] | "\(.labels.alertname) \(.state)"'
}
