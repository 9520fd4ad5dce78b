# Every sysfs value the exporter serves for rxe0 and rxe1 equals what sysfs
# says at the same moment (rnic_vm_sysfs_check reads sysfs before and after
# one scrape and compares once both reads agree; no traffic meanwhile).
EXPORTER_FLAGS="--collector.disable-defaults --collector.sysfs"

# Traffic first, so that the counters are not all zero.
rc_pingpong rxe0 20
start_exporter $EXPORTER_FLAGS
rnic_vm_sysfs_check --port "$EXPORTER_PORT" rxe0 rxe1 ||
  fail "served values differ from sysfs (first scrape)"
# Again after more traffic: state the exporter keeps between scrapes (caches,
# wrap tracking) must follow sysfs.
rc_pingpong rxe0 20
rnic_vm_sysfs_check --port "$EXPORTER_PORT" rxe0 rxe1 ||
  fail "served values differ from sysfs (after more traffic)"
stop_exporter
