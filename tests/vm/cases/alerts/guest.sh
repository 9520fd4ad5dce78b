# The operator's story end to end: the default collectors and the probe feed
# a real Prometheus that evaluates the shipped rules (time compressed 30x).
# host.py watches the alerts go pending, fire and resolve as rxe1's link goes
# down and comes back and the probe's CQ overruns.
EXPORTER=/usr/bin/rnic_exporter_test_hooks
start_exporter --collector.probe --config.file=/case/probe.yml
signal exporter-up
wait_for link-down 120 || fail "host never asked for the link to go down"
ip link set dummy0 down || fail "ip link set dummy0 down"
say "dummy0 (rxe1) down"
signal link-is-down
wait_for link-up 120 || fail "host never asked for the link to come back"
ip link set dummy0 up || fail "ip link set dummy0 up"
say "dummy0 (rxe1) up"
signal link-is-up
wait_host 180 || fail "host side failed"
stop_exporter
