#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target from the repository's fixtures.

usage: make_seeds.py <source dir> <out dir>
Creates <out dir>/<target>/<sha1 of content> files, so the corpora follow
the fixtures instead of being copies kept in the repository.
"""
import hashlib
import os
import re
import shutil
import struct
import sys

SRC, OUT = sys.argv[1], sys.argv[2]
FIX = os.path.join(SRC, "tests", "fixtures")
SEEDS = {}


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    SEEDS.setdefault(target, {})[hashlib.sha1(data).hexdigest()] = data


def files(root, max_size=1 << 20):
    """Regular files under root (symlinks not followed: no duplicates)."""
    for dirpath, _, names in os.walk(root):
        for n in sorted(names):
            p = os.path.join(dirpath, n)
            if os.path.isfile(p) and not os.path.islink(p) \
                    and os.path.getsize(p) <= max_size:
                yield p


def read(p):
    with open(p, "rb") as f:
        return f.read()


# netlink: the byte before a capture selects the call that asks for it
# (fuzz_netlink.cc's switch), the capture is the kernel's answer.
NETLINK_CALLS = [
    (r"^GET_dump", [0]),
    (r"^PORT_GET", [1]),
    (r"^STAT_GET_dev", [2, 3, 8]),
    (r"^STAT_GET_STATUS", [4]),
    (r"^STAT_GET_dump_.*_res", [5, 7]),
    (r"^RES_GET_dump", [6]),
    (r"^RES_QP_GET", [9]),
    (r"^RES_CQ_GET", [10]),
    (r"^RES_MR_GET", [11]),
    (r"^RES_PD_GET", [12]),
    (r"^RES_CTX_GET", [13]),
    (r"^RES_CM_ID_GET", [14]),
]
for p in files(os.path.join(FIX, "netlink")):
    if not p.endswith(".bin"):
        continue
    base = os.path.basename(p)
    for pattern, selectors in NETLINK_CALLS:
        if re.match(pattern, base):
            for s in selectors:
                add("fuzz_netlink", bytes([s]) + read(p))
            break

# sysfs values: every small attribute file of the sysfs trees.
for tree in ("sys", "roce/sys", "kmsg/sys"):
    for p in files(os.path.join(FIX, tree), max_size=512):
        add("fuzz_sysfs_parse", read(p))

# PCIe link attributes, AER counters and cgroup files.
for p in files(os.path.join(FIX, "health", "sys"), max_size=2048):
    add("fuzz_health_parse", read(p))
add("fuzz_health_parse", read(os.path.join(FIX, "merged", "proc", "213", "cgroup")))
add("fuzz_health_parse", b"4:memory:/kubepods/burstable/pod2c48913c-b29f-11e7-9350-020968147796/"
    + b"a" * 64 + b"\n0::/\n")
add("fuzz_health_parse",
    b"0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n")
add("fuzz_health_parse", b"9:memory:/slurm/uid_1000/job_77/step_0/task_0\n")
# The GPU trees: configuration space (binary), kernel releases, and the
# bus/pci/devices link targets ParseAncestors splits.
for host in ("dgx", "shared", "amd"):
    for p in files(os.path.join(FIX, "gpu", host), max_size=4096):
        add("fuzz_health_parse", read(p))
    devices = os.path.join(FIX, "gpu", host, "sys", "bus", "pci", "devices")
    for name in sorted(os.listdir(devices))[:8]:
        add("fuzz_health_parse", os.readlink(os.path.join(devices, name)).encode())

# range lists: cpulist/cpumask files and the ranges of PMU format files.
for p in files(FIX, max_size=512):
    name = os.path.basename(p)
    if name in ("cpulist", "local_cpulist", "cpumask"):
        add("fuzz_range_list", read(p))
    if os.path.basename(os.path.dirname(p)) == "format":
        add("fuzz_range_list", read(p).split(b":", 1)[-1])

# kmsg: each fixture log whole, and each line as a record.
for p in (os.path.join(FIX, "kmsg", "dmesg-burst.txt"),
          os.path.join(FIX, "merged", "kmsg.txt")):
    text = read(p)
    add("fuzz_kmsg", text)
    for line in text.splitlines():
        if line.strip():
            add("fuzz_kmsg", line)

# ethtool -S captures.
for p in files(os.path.join(FIX, "roce", "ethtool")):
    add("fuzz_ethtool", read(p))

# ethtool generic netlink replies: the byte before selects the parser
# (fuzz_ethtool_nl.cc's switch) from the file name.
ETHTOOL_PARSER = {"GENL_GETFAMILY": 0, "ETHTOOL_FEC_GET": 1,
                  "ETHTOOL_STATS_GET": 2, "ETHTOOL_MODULE_EEPROM_GET": 3}
for sub in ("replay", "replay-merged"):
    for p in files(os.path.join(FIX, "ethtool", sub)):
        name = os.path.basename(p)
        for prefix, b in ETHTOOL_PARSER.items():
            if name.startswith(prefix):
                add("fuzz_ethtool_nl", bytes([b]) + read(p))

# Module EEPROM pages, lower page first, then the upper pages in the order
# PagesToRead() asks for them (their file names sort that way), then an
# SFF-8472 module's A2h.
eeprom = os.path.join(FIX, "ethtool", "eeprom")
for module in sorted(os.listdir(eeprom)) if os.path.isdir(eeprom) else []:
    d = os.path.join(eeprom, module)
    pages = sorted(n for n in os.listdir(d) if n.startswith("page"))
    a2h = [n for n in os.listdir(d) if n == "a2h.bin"]
    add("fuzz_module_eeprom", read(os.path.join(d, "lower.bin")) +
        b"".join(read(os.path.join(d, n)) for n in pages + a2h))

# rtnetlink DCB replies, built from the "key value" fixture files the way
# the kernel answers DCB_CMD_IEEE_GET (constants of linux/dcbnl.h).
RTM_GETDCB, DCB_CMD_IEEE_GET, DCB_ATTR_IEEE, DCB_ATTR_DCBX = 78, 21, 13, 14
IEEE_ETS, IEEE_PFC, IEEE_APP_TABLE, IEEE_APP, APP_SEL_DSCP = 1, 2, 3, 1, 5


def nla(kind, payload):
    attr = struct.pack("=HH", 4 + len(payload), kind) + payload
    return attr + b"\0" * (-len(attr) % 4)


for p in files(os.path.join(FIX, "roce", "dcb")):
    kv = dict(line.split(None, 1) for line in read(p).decode().splitlines()
              if line.strip())
    num = {k: int(v, 0) for k, v in kv.items()}
    pfc = struct.pack("=BBBxH", num.get("pfc_cap", 0), num.get("pfc_en", 0),
                      0, 0) + b"\0" * 128  # requests, indications
    ets = bytes([num.get("willing", 0)]) + b"\0" * 58
    apps = b"".join(nla(IEEE_APP, struct.pack("=BBH", APP_SEL_DSCP, i % 8, i))
                    for i in range(num.get("app_dscp", 0)))
    ieee = nla(IEEE_ETS, ets) + nla(IEEE_PFC, pfc) + nla(IEEE_APP_TABLE, apps)
    body = struct.pack("=BBH", 0, DCB_CMD_IEEE_GET, 0) + \
        nla(DCB_ATTR_IEEE, ieee) + nla(DCB_ATTR_DCBX, bytes([num.get("dcbx", 0)]))
    add("fuzz_dcb", struct.pack("=IHHII", 16 + len(body), RTM_GETDCB, 0, 1, 0)
        + body)

# PMUs: each fixture PMU's formats and events, then encodings to try: its
# own event names and the event specs of the shipped example config.
example = read(os.path.join(SRC, "packaging", "rnic_exporter.yml")).decode()
example_specs = re.findall(r"^\s*event:\s*(\S+)", example, re.M)
pmus = os.path.join(FIX, "perf", "bus", "event_source", "devices")
for pmu in sorted(os.listdir(pmus)):
    lines = []
    fmt = os.path.join(pmus, pmu, "format")
    for f in sorted(os.listdir(fmt)) if os.path.isdir(fmt) else []:
        lines.append(f"f {f} " + read(os.path.join(fmt, f)).decode().strip())
    evs = os.path.join(pmus, pmu, "events")
    names = [e for e in sorted(os.listdir(evs)) if "." not in e] \
        if os.path.isdir(evs) else []
    for e in names:
        lines.append(f"e {e} " + read(os.path.join(evs, e)).decode().strip())
    lines += names + example_specs
    add("fuzz_pmu", "\n".join(lines) + "\n")

# YAML: the shipped example config and the VM cases' configs.
add("fuzz_config", example)
add("fuzz_config", """expect:
  - device: ^mlx5_
    active_ports: 1
    link_layer: Ethernet
    rate_gbps: 100
    mtu: 9000
    pfc_priorities: [3]
    trust: dscp
    ecn_priority: 3
    numa_local_irqs: true
    firmware: 22.36.1010
""")
for p in files(os.path.join(SRC, "tests", "vm", "cases")):
    if p.endswith(".yml") and os.path.basename(p) != "rules.yml":
        add("fuzz_config", read(p))

# Inputs at the bounds: a second YAML document (refused), anchors and
# aliases (a parsed node costs far more than its text).
add("fuzz_config", "probe: {interval: 1s}\n---\nbogus: 1\n")
add("fuzz_config", "fabric: &f {peers: [a, b]}\nprobe: *f\n")

# Web config (--web.config.file): the shipped example, and one with every
# TLS key and a bcrypt hash.
# fabric: the first byte picks the parser (fuzz_fabric.cc's switch).
_hello = struct.pack("<HBBIQI", 0x4652, 1, 0x03, 4096, 0x7f0000001000, 0x1234)
add("fuzz_fabric", b"\x00" + _hello)
add("fuzz_fabric", b"\x00" + struct.pack("<HBBIQI", 0x4652, 1, 0x87, 64, 0, 1)
    + bytes(36))
_addresses = ('{"version":1,"port":18530,"devices":{"rxe0":[{"ip":"10.0.3.1",'
              '"prefix":24}],"rxe1":[{"ip":"10.0.4.1","prefix":24},'
              '{"ip":"fd00::1","prefix":64}]}}\n')
add("fuzz_fabric", b"\x01" + _addresses.encode())
add("fuzz_fabric", b"\x02" + b'[{"targets":["10.0.3.2:9709","node-b"],'
    b'"labels":{"tor":"t1","rail":"0"}}]')
add("fuzz_fabric", b"\x02- targets: [a, 'b:1']\n  labels: {tor: t2}\n")
add("fuzz_fabric", b"\x03target=node-a%3A9709&device=mlx5_0&operation=write")
add("fuzz_web_config", read(os.path.join(SRC, "packaging", "web-config.yml")))
add("fuzz_web_config", """tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: TLS12
  max_version: TLS13
  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
  prefer_server_cipher_suites: true
http_server_config:
  headers:
    X-Frame-Options: deny
basic_auth_users:
  prom: $2y$04$6WYQFu2YlMqT5eLh/dZHxOl0JbqZhD4Ck7bwEvMvuH6Y6wQDdNbu6
""")

# Flags: those the shipped files and the README pass, one seed per file.
flag_re = re.compile(r"(--[a-z][a-z0-9_.-]+(?:=[^\s\"'`\\]+)?)")
for p in (os.path.join(SRC, "packaging", "systemd", "rnic-exporter.service"),
          os.path.join(SRC, "packaging", "systemd", "rnic-exporter.default"),
          os.path.join(SRC, "README.md")):
    found = [f for f in flag_re.findall(read(p).decode())
             if f.startswith(("--web.", "--collector", "--path.", "--log.",
                              "--config."))]
    for i in range(0, len(found), 8):
        add("fuzz_flags", "\n".join(found[i:i + 8]) + "\n")

# Flags at their bounds: durations at and past a range's ends, timeouts
# below a millisecond, a flag given twice.
add("fuzz_flags", "--collector.ethtool.optics-interval=24h\n"
    "--web.default-timeout=0.001\n--web.timeout-offset=1e-300\n")
add("fuzz_flags", "--collector.ethtool.optics-interval=293y\n"
    "--collector.kmsg\n--no-collector.kmsg\n")

# HTTP headers (Accept, Accept-Encoding, scrape timeout), as Prometheus
# and curl send them.
for accept in (
        "application/openmetrics-text;version=1.0.0;q=0.5,"
        "application/openmetrics-text;version=0.0.1;q=0.4,"
        "text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
        "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", "*/*", ""):
    for enc in ("gzip", "gzip, deflate, br", "identity", "gzip;q=0", ""):
        for timeout in ("10", "0.5", "14.5", ""):
            add("fuzz_web_headers", f"{accept}\n{enc}\n{timeout}\n")

shutil.rmtree(OUT, ignore_errors=True)
for target, seeds in SEEDS.items():
    d = os.path.join(OUT, target)
    os.makedirs(d)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
