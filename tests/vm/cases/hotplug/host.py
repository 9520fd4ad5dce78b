"""rxe1 removed and re-added: its series vanish and return in Prometheus, and
the exporter never missed a scrape."""
import time

import rnicvm

RXE1 = 'rnic_hw_sent_pkts_total{job="rnic",device="rxe1"}'
RXE0 = 'rnic_hw_sent_pkts_total{job="rnic",device="rxe0"}'


def run():
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("exporter-up", timeout=90)
    prom.wait_up(timeout=30)
    t_up = time.time()
    prom.wait_present(RXE1)
    rnicvm.signal_guest("rxe1-seen")

    rnicvm.wait_guest("deleted", timeout=60)
    prom.wait_absent(RXE1, timeout=20)
    if not prom.query(RXE0):
        raise rnicvm.CheckFailed("rxe0's series vanished with rxe1")
    rnicvm.log("rxe1's series vanished, rxe0's stayed")
    rnicvm.signal_guest("rxe1-gone-seen")

    rnicvm.wait_guest("readded", timeout=60)
    prom.wait_present(RXE1, timeout=20)
    rnicvm.log("rxe1's series are back")
    rnicvm.signal_guest("rxe1-back-seen")

    # Every scrape since the exporter came up succeeded.
    prom.wait_scrapes(1)
    window = max(int(time.time() - t_up), 2)
    worst = prom.value(f'min_over_time(up{{job="rnic"}}[{window}s])')
    if worst != 1:
        raise rnicvm.CheckFailed(f"a scrape failed during the last {window}s (min up = {worst})")


rnicvm.main(run)
