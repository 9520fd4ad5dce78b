"""The roce collector's MTU facts for rxe0/eth0 reach Prometheus and follow
an MTU change made in the guest."""
import rnicvm

SERIES = 'rnic_roce_mtu_4096_capable{job="rnic",vm="vm0",device="rxe0",port="1",netdev="eth0"}'
MTU = 'rnic_netdev_mtu_bytes{job="rnic",vm="vm0",device="rxe0",port="1",netdev="eth0"}'


def run():
    prom = rnicvm.Prometheus()
    rnicvm.wait_guest("exporter-up", timeout=90)
    prom.wait_up(timeout=30)
    prom.wait_value(SERIES, lambda v: v == 0)
    prom.wait_value(MTU, lambda v: v == 1500)
    rnicvm.signal_guest("baseline")
    rnicvm.wait_guest("mtu-raised", timeout=90)
    prom.wait_value(MTU, lambda v: v == 4200, timeout=20)
    prom.wait_value(SERIES, lambda v: v == 1, timeout=20)
    absent = prom.query('{job="rnic",__name__=~"rnic_pfc_.*"}')
    if absent:
        raise rnicvm.CheckFailed(f"PFC series on virtio-net: {absent}")


rnicvm.main(run)
