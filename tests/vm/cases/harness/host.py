"""Harness self-test, host side: the guest's page is scraped through the forward."""
import rnicvm


def run():
    prom = rnicvm.Prometheus()
    expected = float(rnicvm.wait_guest("served", timeout=90))
    prom.wait_up(timeout=20)
    got = prom.wait_value('rnicvm_selftest_value{vm="vm0"}', lambda v: v == expected, timeout=20)
    rnicvm.log(f"Prometheus sees rnicvm_selftest_value={got} via {rnicvm.exporter_url()}")
    alert = prom.wait_alert("RnicVmSelftest", timeout=20)[0]
    rnicvm.log(f"alert {alert['labels']['alertname']} is {alert['state']}")


rnicvm.main(run)
