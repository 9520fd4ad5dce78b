# RC traffic on rxe0 makes its packet counters rise in Prometheus (host.py
# checks through the Prometheus API that they reach the guest's final sysfs
# values).
start_exporter --collector.disable-defaults --collector.sysfs
signal exporter-up
wait_for baseline 90 || fail "host never took its baseline"
rc_pingpong rxe0 200
signal traffic-done "$(counter rxe0 sent_pkts) $(counter rxe0 rcvd_pkts)"
say "traffic done: sent_pkts rcvd_pkts = $(cat "$SYNC/traffic-done")"
wait_host 90 || fail "host side failed"
stop_exporter
