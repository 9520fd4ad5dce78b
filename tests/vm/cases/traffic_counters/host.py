"""Traffic on rxe0 moves rnic_hw_{sent,rcvd}_pkts_total, seen by Prometheus."""
import rnicvm

SERIES = 'rnic_hw_{}_pkts_total{{job="rnic",vm="vm0",device="rxe0",port="1"}}'


def run():
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("exporter-up", timeout=90)
    prom.wait_up(timeout=30)
    base = {c: prom.wait_value(SERIES.format(c), lambda v: v >= 0) for c in ("sent", "rcvd")}
    rnicvm.log(f"baseline {base}")
    rnicvm.signal_guest("baseline")
    final = rnicvm.wait_guest("traffic-done", timeout=90).split()
    final = {"sent": float(final[0]), "rcvd": float(final[1])}
    for c in ("sent", "rcvd"):
        if final[c] < base[c] + 200:
            raise rnicvm.CheckFailed(f"{c}_pkts in sysfs only {base[c]:g} -> {final[c]:g}")
        # rxe0 is idle after the traffic, so Prometheus must reach exactly the
        # value the guest read from sysfs.
        v = prom.wait_value(SERIES.format(c), lambda v, c=c: v == final[c], timeout=20)
        rnicvm.log(f"{c}_pkts: {base[c]:g} -> {v:g} in Prometheus")
    inc = prom.value(f"increase({SERIES.format('sent')}[2m])")
    if not inc or inc <= 0:
        raise rnicvm.CheckFailed(f"increase() over the sent counter is {inc}")


rnicvm.main(run)
