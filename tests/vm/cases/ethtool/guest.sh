# ethtool collector on the real kernel: rxe0 on virtio-net eth0, rxe1 on
# dummy0. Neither driver has FEC or a module EEPROM: ethtool generic netlink
# answers EOPNOTSUPP, so no rnic_fec_* or rnic_optic_* series may appear,
# each refusal is logged once over several scrapes and module reads, and the
# collector succeeds. The family itself must resolve (Linux >= 5.6).
start_exporter --collector.disable-defaults --collector.ethtool \
  --collector.ethtool.optics-interval=1s --log.level=debug
scrape >/dev/null || fail "first scrape"
# Several optics rounds (1 s apart) and scrapes, each round seen in the log
# before the once-only lines are counted (not a sleep that may be short).
n=300
until grep -q 'msg="optics round done" round=[3-9]' "$EXPORTER_LOG"; do
  n=$((n - 1))
  [ $n -gt 0 ] || fail "no third optics round logged"
  scrape >/dev/null || fail "scrape between optics rounds"
  usleep 200000
done
scrape >/dev/null || fail "second scrape"
m=$(scrape) || fail "last scrape"
echo "$m" >"$VMOUT/metrics.txt"
if echo "$m" | grep -E '^rnic_(fec_|optic_)'; then
  fail "FEC or optics series for a driver without them"
fi
echo "$m" | grep -q '^rnic_scrape_collector_success{collector="ethtool"} 1$' ||
  fail "collector failed"
grep -q 'no ethtool generic netlink' "$EXPORTER_LOG" &&
  fail "the ethtool genl family did not resolve"
for what in fec/eth0 optics/eth0 fec/dummy0 optics/dummy0; do
  n=$(grep -c "key=$what " "$EXPORTER_LOG")
  [ "$n" = 1 ] || fail "$what logged $n times"
done
grep "key=fec/eth0 " "$EXPORTER_LOG" | grep -q 'Operation not supported' ||
  fail "virtio-net FEC refusal is not EOPNOTSUPP"
stop_exporter
