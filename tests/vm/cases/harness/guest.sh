# Harness self-test, no exporter needed: rxe devices, port rate from the NIC's
# speed=, loopback RC traffic, the forwarded port, guest/host markers.
for d in rxe0 rxe1; do
  [ -e /sys/class/infiniband/$d ] || fail "$d missing"
done
rate=$(cat /sys/class/infiniband/rxe0/ports/1/rate)
case $rate in
  "25 Gb/sec"*) ;;
  *) fail "rxe0 rate '$rate' does not follow the NIC's speed=25000" ;;
esac
before=$(counter rxe0 sent_pkts)
rc_pingpong rxe0 50
after=$(counter rxe0 sent_pkts)
[ "$after" -ge $((before + 50)) ] || fail "sent_pkts $before -> $after after 50 ping-pongs"
say "sent_pkts $before -> $after"

# A static page on the exporter's port: the host's Prometheus must scrape it
# through the forward.
mkdir -p /tmp/www
echo "rnicvm_selftest_value $after" >/tmp/www/metrics
httpd -p "$EXPORTER_PORT" -h /tmp/www || fail "httpd"
signal served "$after"
wait_host 60 || fail "host side failed"
