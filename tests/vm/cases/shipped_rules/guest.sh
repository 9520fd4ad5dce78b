# RC traffic on rxe0 under the default collectors; host.py checks the shipped
# recording rules, their evaluation health, and every dashboard query on the
# resulting Prometheus data.
start_exporter
signal exporter-up
wait_for baseline 90 || fail "host never took its baseline"
rc_pingpong rxe0 2000
signal traffic-done
wait_host 120 || fail "host side failed"
stop_exporter
