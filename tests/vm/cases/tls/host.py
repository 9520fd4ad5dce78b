"""TLS and basic auth in the VM: the host's real Prometheus scrapes the
guest's exporter over https with basic_auth (up == 1, rxe series arrive);
curl with the test CA gets 401 with WWW-Authenticate without or with wrong
credentials and 200 with the right ones; plain HTTP fails cleanly."""
import os
import subprocess

import rnicvm


def curl(*args):
    url = rnicvm.exporter_url().replace("http://", "https://") + "/metrics"
    tls = os.path.join(os.environ["RNIC_VM_SYNC_DIR"], "..", "tls", "ca.crt")
    p = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-D", "-", "--max-time", "20",
                        "--cacert", tls, *args, url], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def run():
    rnicvm.wait_guest("exporter-up", timeout=150)
    prom = rnicvm.Prometheus()
    prom.wait_up(timeout=90)
    prom.wait_present('rnic_port_state{device="rxe0"}', timeout=30)
    rc, head, err = curl()
    if rc != 0 or " 401" not in head.splitlines()[0] or "www-authenticate: basic" not in head.lower():
        raise rnicvm.CheckFailed(f"no credentials: rc={rc} {head!r} {err!r}")
    rc, head, err = curl("-u", "prom:wrong")
    if rc != 0 or " 401" not in head.splitlines()[0]:
        raise rnicvm.CheckFailed(f"wrong password: rc={rc} {head!r} {err!r}")
    rc, head, err = curl("-u", "prom:s3cret")
    if rc != 0 or " 200" not in head.splitlines()[0]:
        raise rnicvm.CheckFailed(f"right password: rc={rc} {head!r} {err!r}")
    # Plain HTTP from the host to the TLS port: an error, never metrics.
    plain = subprocess.run(["curl", "-sS", "--max-time", "20", "-u", "prom:s3cret",
                            rnicvm.exporter_url() + "/metrics"],
                           capture_output=True, text=True)
    if "rnic_" in plain.stdout:
        raise rnicvm.CheckFailed("plain HTTP got metrics from the TLS listener")
    rnicvm.signal_guest("tls-checked")
    rnicvm.wait_guest("plain-checked", timeout=60)
    # Still scraped over TLS after the plain-HTTP attempts.
    prom.wait_scrapes(2)
    prom.wait_up(timeout=30)
    rnicvm.log("TLS + basic auth: Prometheus up, 401/401/200, plain HTTP refused")


rnicvm.main(run)
