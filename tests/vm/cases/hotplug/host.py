"""rxe1 removed and re-added: its series vanish and return in Prometheus while
rxe0's stay, and the exporter is still scraped fine afterwards."""
import time

import rnicvm

# One query gives the devices of one consistent moment, so a single slow
# scrape (all series stale for a moment) cannot pass for the removal.
DEVICES = 'count by (device) (rnic_hw_sent_pkts_total{job="rnic"})'


def run():
    prom = rnicvm.Prometheus()

    def devices_are(*want):
        def check():
            got = sorted(labels["device"] for labels, _ in prom.query(DEVICES))
            return got == sorted(want)
        return prom.wait(f"served devices to be {list(want)}", check, timeout=30)

    rnicvm.wait_guest("exporter-up", timeout=90)
    prom.wait_up(timeout=30)
    t_up = time.time()
    devices_are("rxe0", "rxe1")
    rnicvm.signal_guest("rxe1-seen")

    rnicvm.wait_guest("deleted", timeout=60)
    devices_are("rxe0")
    rnicvm.log("rxe1's series vanished, rxe0's stayed")
    rnicvm.signal_guest("rxe1-gone-seen")

    rnicvm.wait_guest("readded", timeout=60)
    devices_are("rxe0", "rxe1")
    rnicvm.log("rxe1's series are back")
    rnicvm.signal_guest("rxe1-back-seen")

    # Still scraped fine at the end. Single failed scrapes are only reported:
    # under TCG a sanitizer build on a busy host can miss Prometheus' 1 s
    # timeout. The guest checks that every one of its own scrapes succeeded.
    prom.wait_scrapes(1)
    prom.wait_value('up{job="rnic"}', lambda v: v == 1, timeout=10)
    window = max(int(time.time() - t_up), 2)
    up = f'up{{job="rnic"}}[{window}s]'
    failed = prom.value(f"count_over_time({up}) - sum_over_time({up})")
    rnicvm.log(f"failed Prometheus scrapes since the exporter came up: {failed or 0:g}")


rnicvm.main(run)
