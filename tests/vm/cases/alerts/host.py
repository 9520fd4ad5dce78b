"""The shipped alerts (time compressed 30x by RULES_TIME_SCALE) on real rxe
data: RnicPortDown and RnicProbeFailing go pending, fire and resolve around a
link down; RnicCqOverrun fires on a real CQ overrun seen by the probe's async
event thread and resolves once its rate window has passed."""
import rnicvm

UNDER_TEST = ("RnicPortDown", "RnicProbeFailing", "RnicCqOverrun")


def run():
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("exporter-up", timeout=150)
    prom.wait_up(timeout=30)
    # rnic_probe_success must have been 1 and the port ACTIVE before the
    # link goes: RnicPortDown only pages for a port that was up.
    prom.wait_value('rnic_probe_success{device="rxe1",port="1"}', lambda v: v == 1, timeout=60)
    prom.wait_value('rnic_port_state{device="rxe1",port="1"}', lambda v: v == 4, timeout=30)
    prom.wait_scrapes(3)
    quiet = [a["labels"]["alertname"] for a in prom.alerts()
             if a["labels"].get("alertname") in UNDER_TEST]
    if quiet:
        raise rnicvm.CheckFailed(f"alerts active before the fault: {quiet}")
    # The first build of rxe1's probe pair had its own CQ overrun already,
    # and the probe's production path rebuilt the pair for it.
    cq0 = prom.wait_value('rnic_async_events_total{device="rxe1",event="cq_err"}',
                          lambda v: v >= 1, timeout=30)
    rb0 = prom.wait_value('rnic_probe_rebuilds_total{device="rxe1",port="1"}',
                          lambda v: v >= 1, timeout=30)

    rnicvm.signal_guest("link-down")
    rnicvm.wait_guest("link-is-down", timeout=60)
    prom.wait_alerts_fire(("RnicPortDown", "RnicProbeFailing"), {"device": "rxe1"})

    rnicvm.signal_guest("link-up")
    rnicvm.wait_guest("link-is-up", timeout=60)
    # The probe rebuilds rxe1's QPs; the test build overruns the new pair's CQ.
    prom.wait_value('rnic_async_events_total{device="rxe1",event="cq_err"}',
                    lambda v: v > cq0, timeout=60)
    # Link up, then the overrun: two rebuilds at least (the flap, the CQ).
    prom.wait_value('rnic_probe_rebuilds_total{device="rxe1",port="1"}',
                    lambda v: v >= rb0 + 2, timeout=60)
    a = prom.wait_alert("RnicCqOverrun", "firing", timeout=60)
    rnicvm.log(f"RnicCqOverrun firing: {a[0]['labels']}")
    for name in UNDER_TEST:
        prom.wait_alert_resolved(name, timeout=120)


rnicvm.main(run)
