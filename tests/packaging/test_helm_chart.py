"""The Helm chart, rendered the way `helm template` renders it (Helm is not
packaged in Debian 12; tests/packaging/helm_render is Go's text/template with
sprig, Helm's own engine) under several value sets, and checked:

- every document is a Kubernetes object (apiVersion, kind, metadata.name);
- every flag the DaemonSet passes is one `rnic_exporter --help` knows;
- with TLS and basic auth on, the rendered web config Secret is one the real
  exporter starts with and enforces (curl over TLS: 401 without credentials,
  200 with), mounted where the --web.config.file flag points;
- a missing TLS Secret name fails the render with the chart's message;
- NET_ADMIN (optics: module EEPROM reads) is added only with optics.enabled,
  and the plain DaemonSet in packaging/kubernetes adds no capability.

Usage: test_helm_chart.py SOURCE_DIR EXPORTER WORK_DIR [GO_COMMAND...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

SRC, BIN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
GO = sys.argv[4:] or ["go"]  # the go command (or the missing-tool stand-in)
sys.path.insert(0, os.path.join(SRC, "tests", "e2e"))
# test_web_tls reads these when imported.
os.environ.setdefault("RNIC_EXPORTER", BIN)
os.environ.setdefault("RNIC_SOURCE_DIR", SRC)
from rnic_e2e import Exporter  # noqa: E402
from test_web_tls import Pki, bcrypt, curl  # noqa: E402

CHART = os.path.join(SRC, "packaging", "helm", "rnic-exporter")
GOPATH_SYSTEM = "/usr/share/gocode"


def build_renderer():
    """Builds helm_render against Debian's Go packages (GOPATH mode; the
    /v3 import paths Debian installs without the suffix are linked in)."""
    gopath = os.path.join(WORK, "gopath")
    for mod in ("sprig", "semver"):
        link = os.path.join(gopath, "src", "github.com", "Masterminds", mod, "v3")
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.islink(link):
            os.symlink(os.path.join(GOPATH_SYSTEM, "src", "github.com", "Masterminds", mod), link)
    out = os.path.join(WORK, "helm_render")
    env = dict(os.environ, GO111MODULE="off", GOPATH=gopath + ":" + GOPATH_SYSTEM,
               GOCACHE=os.path.join(WORK, "gocache"), GOFLAGS="")
    subprocess.run(GO + ["build", "-o", out,
                    os.path.join(SRC, "tests", "packaging", "helm_render", "main.go")],
                   check=True, env=env)
    return out


RENDER = None


def render(values=None):
    """(exit code, list of documents, stderr)."""
    args = [RENDER, CHART, "rnic"]
    if values is not None:
        path = os.path.join(WORK, "values.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(values, f)
        args += ["-f", path]
    p = subprocess.run(args, capture_output=True, text=True)
    docs = [d for d in yaml.safe_load_all(p.stdout) if d] if p.returncode == 0 else []
    return p.returncode, docs, p.stderr


def by_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def known_flags():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"--\[?(?:no-)?\]?([a-z][a-z0-9_.-]+)", out))


class HelmChartTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global RENDER
        RENDER = build_renderer()
        cls.flags = known_flags()
        cls.tmp = tempfile.mkdtemp(prefix="rnic_helm_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_objects(self, docs):
        self.assertTrue(docs)
        for d in docs:
            for key in ("apiVersion", "kind"):
                self.assertIn(key, d)
            self.assertTrue(d["metadata"]["name"])

    def container(self, docs):
        ds = by_kind(docs, "DaemonSet")
        self.assertEqual(len(ds), 1)
        return ds[0]["spec"]["template"]["spec"]["containers"][0], ds[0]["spec"]["template"]["spec"]

    def assert_flags_known(self, args):
        for a in args:
            self.assertTrue(a.startswith("--"), a)
            name = a[2:].split("=", 1)[0]
            if name.startswith("no-"):
                name = name[3:]
            self.assertIn(name, self.flags, "flag %s unknown to rnic_exporter --help" % a)

    def test_defaults(self):
        rc, docs, err = render()
        self.assertEqual(rc, 0, err)
        self.assert_objects(docs)
        self.assertEqual(sorted(d["kind"] for d in docs), ["DaemonSet", "Service", "ServiceMonitor"])
        c, pod = self.container(docs)
        self.assert_flags_known(c["args"])
        self.assertIn("--no-collector.kmsg", c["args"])
        self.assertFalse(any(a.startswith("--web.config.file") for a in c["args"]))
        self.assertEqual(c["livenessProbe"]["httpGet"]["path"], "/-/healthy")
        self.assertNotIn("scheme", c["livenessProbe"]["httpGet"])
        self.assertTrue(pod["securityContext"]["runAsNonRoot"])
        self.assertEqual(c["securityContext"]["capabilities"], {"drop": ["ALL"]})
        svc = by_kind(docs, "Service")[0]
        self.assertEqual(svc["spec"]["ports"][0]["port"], 9709)

    def test_extra_args_and_kmsg(self):
        rc, docs, err = render({"kmsg": {"enabled": True},
                                "extraArgs": ["--collector.probe", "--log.level=debug"]})
        self.assertEqual(rc, 0, err)
        c, pod = self.container(docs)
        self.assert_flags_known(c["args"])
        self.assertNotIn("--no-collector.kmsg", c["args"])
        self.assertIn("--collector.probe", c["args"])
        self.assertEqual(c["securityContext"]["capabilities"]["add"], ["SYSLOG"])
        self.assertEqual(pod["securityContext"]["runAsUser"], 0)
        # Kubernetes refuses privileged with allowPrivilegeEscalation false.
        sc = c["securityContext"]
        if sc.get("privileged"):
            self.assertIsNot(sc.get("allowPrivilegeEscalation"), False)

    def test_optics_adds_net_admin_only_when_enabled(self):
        rc, docs, err = render({"optics": {"enabled": True}})
        self.assertEqual(rc, 0, err)
        self.assert_objects(docs)
        c, pod = self.container(docs)
        self.assert_flags_known(c["args"])
        sc = c["securityContext"]
        self.assertEqual(sc["capabilities"], {"drop": ["ALL"], "add": ["NET_ADMIN"]})
        # Root, or the added capability is not effective; runAsNonRoot with
        # uid 0 would keep the pod from starting.
        self.assertEqual(pod["securityContext"]["runAsUser"], 0)
        self.assertNotIn("runAsNonRoot", pod["securityContext"])
        # NET_ADMIN alone: no privileged container, no escalation.
        self.assertNotIn("privileged", sc)
        self.assertIs(sc["allowPrivilegeEscalation"], False)
        # Together with the other opt-ins, each keeps its own capability.
        rc, docs, err = render({"optics": {"enabled": True}, "kmsg": {"enabled": True},
                                "fabric": {"enabled": True}})
        self.assertEqual(rc, 0, err)
        c, _ = self.container(docs)
        self.assertEqual(sorted(c["securityContext"]["capabilities"]["add"]),
                         ["IPC_LOCK", "NET_ADMIN", "SYSLOG"])
        # Without it, no value set adds NET_ADMIN.
        for values in (None, {"kmsg": {"enabled": True}}, {"fabric": {"enabled": True}},
                       {"optics": {"enabled": False}}):
            rc, docs, err = render(values)
            self.assertEqual(rc, 0, err)
            c, _ = self.container(docs)
            self.assertNotIn("NET_ADMIN", c["securityContext"]["capabilities"].get("add", []),
                             values)

    def test_plain_daemonset_adds_no_capability(self):
        with open(os.path.join(SRC, "packaging", "kubernetes", "daemonset.yaml")) as f:
            ds = [d for d in yaml.safe_load_all(f) if d and d["kind"] == "DaemonSet"]
        self.assertEqual(len(ds), 1)
        pod = ds[0]["spec"]["template"]["spec"]
        self.assertTrue(pod["securityContext"]["runAsNonRoot"])
        self.assertEqual(pod["containers"][0]["securityContext"]["capabilities"],
                         {"drop": ["ALL"]})

    def test_tls_without_secret_name_fails(self):
        rc, docs, err = render({"web": {"tls": {"enabled": True}}})
        self.assertNotEqual(rc, 0)
        self.assertIn("web.tls.secretName is required", err)

    def test_tls_probes_use_https(self):
        rc, docs, err = render({"web": {"tls": {"enabled": True, "secretName": "certs"}}})
        self.assertEqual(rc, 0, err)
        c, _ = self.container(docs)
        self.assertEqual(c["readinessProbe"]["httpGet"]["scheme"], "HTTPS")

    def test_fabric_peers_are_the_headless_service(self):
        rc, docs, err = render({"fabric": {"enabled": True, "devices": "^mlx5",
                                           "config": {"operations": ["send"],
                                                      "interval": "2s"}}})
        self.assertEqual(rc, 0, err)
        self.assert_objects(docs)
        c, pod = self.container(docs)
        self.assert_flags_known(c["args"])
        self.assertIn("--collector.fabric", c["args"])
        svc = by_kind(docs, "Service")[0]
        # Headless: the name resolves to every ready pod (node, hostNetwork).
        self.assertEqual(svc["spec"].get("clusterIP"), "None")
        flag = [a for a in c["args"] if a.startswith("--config.file=")]
        self.assertEqual(len(flag), 1)
        cfg_path = flag[0].split("=", 1)[1]
        mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["volumes"]}
        name = [n for n, p in mounts.items() if p == os.path.dirname(cfg_path)]
        self.assertEqual(len(name), 1, mounts)
        cm = [d for d in by_kind(docs, "ConfigMap")
              if d["metadata"]["name"] == volumes[name[0]]["configMap"]["name"]]
        self.assertEqual(len(cm), 1)
        text = cm[0]["data"][os.path.basename(cfg_path)]
        cfg = yaml.safe_load(text)
        self.assertEqual(cfg["fabric"]["dns"],
                         "%s.default.svc.cluster.local:9709" % svc["metadata"]["name"])
        self.assertEqual(cfg["fabric"]["operations"], ["send"])
        # The real exporter starts with it (no RDMA here: the probe idles).
        local = os.path.join(self.tmp, "fabric.yml")
        with open(local, "w") as f:
            f.write(text)
        with Exporter(BIN, ["--collector.disable-defaults", "--collector.fabric",
                            "--config.file=" + local]) as e:
            self.assertIn("rnic_scrape_collector_success", e.metrics_text())

    def test_fabric_group_flag_and_its_environment(self):
        rc, docs, err = render({"fabric": {"enabled": False, "group": "rack-7"}})
        self.assertEqual(rc, 0, err)
        c, _ = self.container(docs)
        self.assertFalse([a for a in c["args"] if "fabric.group" in a])
        env = [{"name": "RNIC_TOR",
                "valueFrom": {"configMapKeyRef": {"name": "racks", "key": "tor"}}}]
        for group, want_env in (("rack-7", None), ("$(RNIC_TOR)", env)):
            values = {"fabric": {"enabled": True, "group": group}}
            if want_env:
                values["fabric"]["groupEnv"] = want_env
            rc, docs, err = render(values)
            self.assertEqual(rc, 0, err)
            self.assert_objects(docs)
            c, _ = self.container(docs)
            self.assert_flags_known(c["args"])
            self.assertIn("--collector.fabric.group=" + group, c["args"])
            self.assertEqual(c.get("env"), want_env)
        # The exporter takes the flag as the chart writes it.
        with Exporter(BIN, ["--collector.disable-defaults", "--collector.fabric",
                            "--collector.fabric.group=rack-7"]) as e:
            self.assertIn("rnic_scrape_collector_success", e.metrics_text())

    def test_fabric_exchange_follows_the_exporters_tls_and_auth(self):
        rc, docs, err = render({
            "web": {"tls": {"enabled": True, "secretName": "rnic-tls",
                            "clientAuthType": "RequireAndVerifyClientCert"},
                    "basicAuthUsers": {"fabric": bcrypt("pw")}},
            "fabric": {"enabled": True,
                       "exchange": {"serverName": "rnic.example",
                                    "basicAuthUsername": "fabric",
                                    "basicAuthSecret": "rnic-exchange"}}})
        self.assertEqual(rc, 0, err)
        self.assert_objects(docs)
        c, pod = self.container(docs)
        mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["volumes"]}
        self.assertEqual(volumes["exchange-auth"]["secret"]["secretName"], "rnic-exchange")
        cm = [d for d in by_kind(docs, "ConfigMap")
              if d["metadata"]["name"] == volumes["config"]["configMap"]["name"]][0]
        text = cm["data"]["rnic_exporter.yml"]
        fab = yaml.safe_load(text)["fabric"]
        tls = mounts["tls"]
        self.assertEqual(fab["exchange_scheme"], "https")
        self.assertEqual(fab["exchange_tls_config"], {
            "ca_file": tls + "/ca.crt", "cert_file": tls + "/tls.crt",
            "key_file": tls + "/tls.key", "server_name": "rnic.example"})
        self.assertEqual(fab["exchange_basic_auth"], {
            "username": "fabric",
            "password_file": mounts["exchange-auth"] + "/password"})
        # The real exporter starts with it, the mounted files in the test's
        # directory.
        pki = Pki(self.tmp)
        crt, key = pki.issue("fabric", 7002)
        pw = os.path.join(self.tmp, "password")
        with open(pw, "w") as f:
            f.write("pw\n")
        local = os.path.join(self.tmp, "fabric_tls.yml")
        with open(local, "w") as f:
            f.write(text.replace(tls + "/ca.crt", pki.ca_crt)
                    .replace(tls + "/tls.crt", crt).replace(tls + "/tls.key", key)
                    .replace(mounts["exchange-auth"] + "/password", pw))
        with Exporter(BIN, ["--collector.disable-defaults", "--collector.fabric",
                            "--config.file=" + local]) as e:
            self.assertIn("rnic_scrape_collector_success", e.metrics_text())
        # Without TLS and auth the section names neither.
        rc, docs, err = render({"fabric": {"enabled": True}})
        self.assertEqual(rc, 0, err)
        cm = by_kind(docs, "ConfigMap")
        self.assertNotIn("exchange_", "".join(d["data"].get("rnic_exporter.yml", "") for d in cm))
        rc, docs, err = render({"fabric": {"enabled": True,
                                           "exchange": {"basicAuthSecret": "s"}}})
        self.assertNotEqual(rc, 0)
        self.assertIn("fabric.exchange.basicAuthUsername is required", err)

    def test_tls_and_basic_auth_config_is_served_by_the_exporter(self):
        pki = Pki(self.tmp)
        crt, key = pki.issue("server", 7001)
        rc, docs, err = render({"web": {
            "tls": {"enabled": True, "secretName": "rnic-tls"},
            "basicAuthUsers": {"prometheus": bcrypt("s3cret")},
            "headers": {"X-Content-Type-Options": "nosniff"}}})
        self.assertEqual(rc, 0, err)
        self.assert_objects(docs)
        c, pod = self.container(docs)
        self.assert_flags_known(c["args"])
        # Basic auth covers every path: the probes only check the port.
        self.assertIn("tcpSocket", c["livenessProbe"])
        flag = [a for a in c["args"] if a.startswith("--web.config.file=")]
        self.assertEqual(len(flag), 1)
        cfg_path = flag[0].split("=", 1)[1]
        mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["volumes"]}
        self.assertEqual(os.path.dirname(cfg_path), mounts["web-config"])
        secret = [d for d in by_kind(docs, "Secret")
                  if d["metadata"]["name"] == volumes["web-config"]["secret"]["secretName"]]
        self.assertEqual(len(secret), 1)
        self.assertEqual(volumes["tls"]["secret"]["secretName"], "rnic-tls")
        web_yml = secret[0]["stringData"][os.path.basename(cfg_path)]
        # The Secret mounts at the TLS mount path in the pod; here the files
        # are in the test's directory.
        tls_dir = mounts["tls"]
        self.assertIn(tls_dir + "/tls.crt", web_yml)
        os.replace(crt, os.path.join(self.tmp, "tls.crt"))
        os.replace(key, os.path.join(self.tmp, "tls.key"))
        local = os.path.join(self.tmp, "web-config.yml")
        with open(local, "w") as f:
            f.write(web_yml.replace(tls_dir, self.tmp))
        args = ["--collector.disable-defaults", "--web.config.file=" + local]
        with Exporter(BIN, args) as e:
            url = "https://%s/metrics" % e.address
            rc, status, _ = curl(url, "--cacert", pki.ca_crt)
            self.assertEqual((rc, status), (0, "401"))
            rc, status, headers = curl(url, "--cacert", pki.ca_crt, "-u", "prometheus:s3cret")
            self.assertEqual((rc, status), (0, "200"))
            self.assertEqual(headers.get("x-content-type-options"), "nosniff")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
