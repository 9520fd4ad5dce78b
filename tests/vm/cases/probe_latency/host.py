"""Host side of probe_latency: the real Prometheus scraping the exporter in
the VM evaluates histogram_quantile() over the probe's histogram, and the
exporter's whole /metrics (probe + kmsg families) passes promtool's lint."""
import subprocess

import rnicvm

SEL = 'device="rxe0",port="1",operation="write",size_bytes="64"'


def run():
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("probe-filled", timeout=180)
    prom.wait_up(timeout=30)
    prom.wait_scrapes(3, timeout=30)
    q = f"histogram_quantile(0.5, rate(rnic_probe_latency_seconds_bucket{{{SEL}}}[1m]))"
    p50 = prom.wait_value(q, lambda v: v > 0, timeout=30)
    guest_p50 = float(rnicvm.wait_guest("p50", timeout=60))
    rnicvm.log(f"Prometheus p50 of write 64 B = {p50 * 1e6:.2f} us (guest, cumulative: {guest_p50 * 1e6:.2f} us)")
    # Prometheus sees a 1-minute rate, the guest the histogram since start:
    # same order of magnitude, not the same number.
    if not guest_p50 / 5 <= p50 <= guest_p50 * 5:
        raise rnicvm.CheckFailed(f"Prometheus p50 {p50} far from the guest's {guest_p50}")
    # One round can time out on a loaded host (TCG): the probe must have
    # completed a whole round within the last 30 s, not at this instant.
    if prom.value('max_over_time(rnic_probe_success{device="rxe0",port="1"}[30s])') != 1:
        raise rnicvm.CheckFailed("rnic_probe_success{rxe0} was not 1 in the last 30 s in Prometheus")
    rnicvm.wait_guest("kmsg-done", timeout=90)
    text = rnicvm.http_get(rnicvm.exporter_url() + "/metrics")
    lint = subprocess.run(["promtool", "check", "metrics"], input=text,
                          capture_output=True, text=True)
    if lint.returncode != 0:
        raise rnicvm.CheckFailed("promtool check metrics:\n" + lint.stdout + lint.stderr)
    rnicvm.log(f"promtool check metrics: clean ({len(text.splitlines())} lines)")


rnicvm.main(run)
