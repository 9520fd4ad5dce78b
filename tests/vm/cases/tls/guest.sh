# The exporter serving TLS with basic auth (exporter-toolkit web config from
# host-prepare.sh) to the host's real Prometheus; host.py checks the scrape
# and the refusals with curl. The harness's readiness check speaks plain HTTP,
# so the exporter is started here and the host says when it is reachable.
say "starting rnic_exporter with --web.config.file"
"$EXPORTER" --web.listen-address="0.0.0.0:$EXPORTER_PORT" \
  --web.config.file=/out/tls/web-config.yml >>"$EXPORTER_LOG" 2>&1 &
EXPORTER_PID=$!
signal exporter-up
_n=750
until [ -e "$SYNC/tls-checked" ]; do
  kill -0 "$EXPORTER_PID" 2>/dev/null || { cat "$EXPORTER_LOG"; fail "rnic_exporter exited"; }
  _n=$((_n - 1))
  [ $_n -gt 0 ] || fail "host never finished the TLS checks"
  usleep 200000
done
# Plain HTTP to the TLS listener: no metrics, and the exporter lives on.
answer=$(printf 'GET /metrics HTTP/1.0\r\n\r\n' | timeout 10 nc 127.0.0.1 "$EXPORTER_PORT" 2>/dev/null | head -c 200)
case $answer in *"rnic_"*) fail "plain HTTP got metrics from the TLS listener" ;; esac
kill -0 "$EXPORTER_PID" 2>/dev/null || fail "exporter died after a plain-HTTP request"
signal plain-checked
wait_host 120 || fail "host side failed"
kill "$EXPORTER_PID"
wait "$EXPORTER_PID" 2>/dev/null
say "exporter stopped"
