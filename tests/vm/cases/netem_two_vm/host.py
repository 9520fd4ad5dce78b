"""Two-VM netem run: Prometheus must see the sequence-error counters rise, the
shipped recording rules a retransmit rate, and the shipped RnicRetransmitsHigh
alert (time compressed 30x) go pending, fire and resolve."""
import rnicvm

# (vm, counter) pairs that the loss must move.
EXPECTED = [("client", "rcvd_seq_err"), ("server", "out_of_seq_request")]


def series(vm, counter):
    return f'rnic_hw_{counter}_total{{job="rnic",vm="{vm}",device="rxe0",port="1"}}'


def run():
    prom = rnicvm.Prometheus()
    for vm in ("server", "client"):
        rnicvm.wait_guest(f"{vm}-up", timeout=120)
    prom.wait_up(count=2, timeout=30)
    baseline = {}
    for vm, counter in EXPECTED:
        baseline[vm, counter] = prom.wait_value(series(vm, counter), lambda v: v >= 0)
    rnicvm.log(f"baseline: {baseline}")
    rnicvm.signal_guest("baseline")
    # While the lossy transfer runs (50 s): the shipped recording rules turn
    # rxe's completer_retry_err into the vendor-neutral retransmit rate, and
    # RnicRetransmitsHigh (time compressed 30x) goes pending, then fires.
    rule = 'device_port:rnic_retransmits:rate5m{vm="client",device="rxe0",port="1"}'
    v = prom.wait_value(rule, lambda v: v > 0, timeout=120)
    rnicvm.log(f"recording rule {rule} = {v:.3g}/s")
    prom.wait_alerts_fire(("RnicRetransmitsHigh",), {"vm": "client"})
    for vm in ("server", "client"):
        rnicvm.wait_guest(f"{vm}-done", timeout=180)
    for vm, counter in EXPECTED:
        v = prom.wait_value(series(vm, counter), lambda v: v > baseline[vm, counter], timeout=20)
        rnicvm.log(f"{vm} {counter}: {baseline[vm, counter]:g} -> {v:g}")
    # Once the loss has stopped the alert resolves by itself.
    prom.wait_alert_resolved("RnicRetransmitsHigh", timeout=90)


rnicvm.main(run)
